// Keeps what a person types into the pre-rendered composer before the wasm takes over; the
// composer picks it up when it mounts.
document.addEventListener("input", (e) => {
  if (e.target && e.target.id === "composer-input") {
    window.parleyEarlyDraft = e.target.value;
  }
}, true);
