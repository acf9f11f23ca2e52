// Holds the keys a person types while the live input bar is not there to take them
// (docs/input.md, "The hand-off"). The page is pre-rendered with a live textarea, then the
// wasm takes it over and shows a presentation-only (disabled) bar until the hero's blank
// session is connected: in between, the focus is on the page body and its keys went nowhere.
//
// Until the shell marks the page live (data-composer-live on <html>), this script owns the
// keys that reach no editable element: printable keys, Backspace and Enter go into
// window.parleyEarly ({text, sends}), are shown in whatever composer textarea is present, and
// an Enter is remembered as a send. The shell takes the buffer when it is ready, in order,
// and submits the first pending send. Once live, a key that lands on the body (a re-render
// took the focus) is handed to the composer, and a character on New session, just followed,
// is held for the hero. IME and chords are never touched.
(() => {
  const early = { text: "", sends: [] };
  window.parleyEarly = early;
  // The live bar's keyup listener, filtered: its keyup reads the caret after a key that moved
  // it without an edit (arrows, Home, End, a chord, IME keys) and ends the Space a command name
  // took; a typed character's caret is read at its input event, so its keyup would enter the
  // wasm for nothing (docs/composer.md, "The keystroke budget").
  window.parleyCaretKeyups = (f) => (e) => {
    if (e.key.length !== 1 || e.key === " " || e.ctrlKey || e.metaKey || e.altKey) f(e);
  };
  // The thread's ↓ (components/thread_scroll.go): a smooth scroll to the newest end that
  // lands there. The thread is laid out bottom up and keeps its place in the text, so an
  // answer that grew under the scroll moved the end away: it stopped short, then stayed with
  // the text while the end ran off below the box (QA round 27). Unless the person scrolls
  // meanwhile, it is put at the end when the scroll ends, where the page follows the answer.
  window.parleyJumpNewest = (el) => {
    if (el.scrollTop === 0) return;
    const by = ["wheel", "touchstart", "pointerdown", "keydown"];
    const stop = () => {
      el.removeEventListener("scrollend", land);
      for (const t of by) el.removeEventListener(t, stop);
    };
    const land = () => {
      stop();
      if (el.scrollTop !== 0) el.scrollTo({ top: 0, behavior: "instant" });
    };
    for (const t of by) el.addEventListener(t, stop, { passive: true });
    el.addEventListener("scrollend", land);
    el.scrollTo({ top: 0, behavior: "smooth" });
  };
  // When a finger last went down (performance.now(); 0 when the last pointer was not a
  // finger): a finger lifted is over nothing, though the page keeps :hover where it touched,
  // so the approvals list (components/queue.go) lets an answered entry go a moment later.
  window.parleyTouchAt = 0;
  addEventListener("pointerdown", (e) => {
    window.parleyTouchAt = e.pointerType === "touch" ? performance.now() : 0;
  }, { capture: true, passive: true });
  const root = document.documentElement;
  const live = () => root.hasAttribute("data-composer-live");
  const composer = () => document.getElementById("composer-input");
  const editable = (el) =>
    !!el && (el.isContentEditable ||
      ((el.tagName === "TEXTAREA" || el.tagName === "INPUT" || el.tagName === "SELECT") && !el.disabled && !el.readOnly));
  // Nothing has the focus: the body (or nothing) is where an unclaimed key lands.
  const unfocused = (el) => !el || el === document.body || el === root;
  // The thread itself, one of its messages, or a Copy button a click left the focus on (not a
  // card's field or its other buttons). QA round 21: letters typed after a Copy were lost.
  const onThread = (el) => !!el && (el.classList.contains("thread") ||
    ((el.getAttribute("role") === "article" || el.classList.contains("msg-copy") || el.classList.contains("md-copy")) && !!el.closest(".thread-inner")));
  // New session (a link to the hero) keeps the focus its click gave it until the hero moves
  // the focus to its composer: a character typed in that moment did nothing there and was
  // lost ("/help" arrived as "help"); handed straight to the textarea, it went into the bar of
  // the page that was going, whose draft the hero then replaced. So a character on it, just
  // followed from another page, is held like a key of the hand-off that follows, and the
  // hero's bar takes it (takeOver). Enter and Space are the link's own (they follow it) until
  // a character was held: then they are the typist's too. Followed on the hero itself there
  // is no hand-off to take held keys: the composer simply takes the focus from the click.
  // Only the hero's link: a session's row leads to a bar that takes no held keys on arrival,
  // where they would wait and go out in another session.
  let followed = { at: -1e9, from: "" };
  document.addEventListener("click", (e) => {
    const row = e.target instanceof Element && e.target.closest("a.session-link");
    // pointer: a click of a mouse or a finger (detail counts them), not Enter on the link.
    if (row) followedRow = { at: performance.now(), href: row.getAttribute("href"), el: row, pointer: e.detail > 0 };
    const a = e.target instanceof Element && e.target.closest('a[href="/"]');
    if (!a) return;
    followed = { at: performance.now(), from: location.pathname };
    const t = composer();
    if (location.pathname === "/" && usable(t)) t.focus();
  }, true);
  const followedLink = (el, k) =>
    !!el && el.tagName === "A" && el.getAttribute("href") === "/" && location.pathname === "/" &&
    followed.from !== "/" && performance.now() - followed.at < 3000 &&
    (([...k].length === 1 && k !== " ") || early.text !== "" || early.sends.length > 0);
  // A character typed on the row of the session the page shows (just clicked, or reached by
  // Tab) is for that session's composer: a link does nothing with a letter, and the person
  // who opened a session and typed lost the first keys. The composer says whose draft it shows
  // (data-session, set by the shell). Until it shows the row's session (the render after a
  // click is a frame or two away), the keys of a row just clicked wait in parleyRowKeys under
  // that session's id, and the shell takes them when it shows that session; any other session
  // drops them. Keys are never held for a bar that may not come, nor given to another session.
  const rowKeys = { session: "", text: "" };
  window.parleyRowKeys = rowKeys;
  let followedRow = { at: -1e9, href: "", el: null, pointer: false };
  // The shell asks whether the session it shows was opened by a click on its row (takeRowKeys).
  window.parleyFollowedRow = () => followedRow;
  // go-app keeps the list's rows by place: a row that moved as its session opened leaves the
  // focus in its old slot, the same element now showing another session's row. A key typed
  // there just after the click was for the row clicked; one typed on another row the person
  // moved to is not.
  const rowOf = (el, k) => {
    if (!el || el.tagName !== "A" || !el.classList.contains("session-link")) return "";
    if ([...k].length !== 1 || (k === " " && rowKeys.text === "")) return "";
    let href = el.getAttribute("href");
    if (href !== location.pathname && el === followedRow.el && followedRow.href === location.pathname && performance.now() - followedRow.at < 2000) {
      href = followedRow.href;
    }
    return href === location.pathname ? href.slice(3) : "";
  };
  const usable = (t) => !!t && !t.disabled && (typeof t.checkVisibility !== "function" || t.checkVisibility());
  const show = () => {
    const t = composer();
    if (t && !live() && t.value !== early.text) {
      t.value = early.text;
      t.setSelectionRange(t.value.length, t.value.length);
    }
  };
  // The textareas the wasm builds start empty: show the buffer in them as they appear.
  const seen = new MutationObserver(() => {
    if (live()) {
      seen.disconnect();
      return;
    }
    if (early.text) show();
  });
  seen.observe(root, { childList: true, subtree: true });

  // The decision the person was answering when the page reloaded (the composer keeps its id
  // in the tab, docs/composer.md): the keys they go on typing while the page comes back are
  // its, not the draft's (QA round 13 #1: the first letters after a reload went to the hidden
  // draft, and out with the next message). They are held here, unseen, until the composer
  // shows that decision and hands them to the field it focused (parleyDecisionKeys(true)),
  // or gives them to the draft when it does not come back (false, or 10 s on). An open
  // fn-form comes back as well, and its keys are held the same way (QA round 20 #10).
  const held = { keys: [], open: false };
  try {
    const sid = location.pathname.startsWith("/s/") ? location.pathname.slice(3) : "";
    held.open = !!sid && !!(sessionStorage.getItem("parley.entered." + sid) || sessionStorage.getItem("parley.fnform.open." + sid));
  } catch (_) { /* no storage: nothing was kept */ }
  window.parleyDecisionKeys = (into) => {
    if (!held.open || held.giving) return;
    held.giving = true;
    // The field the decision focused. Its focus may come a few frames after this call, so the
    // keys wait for it (still held, in order, for up to a second); a field is never guessed
    // (QA round 20 #6: the guess, the form's first field, was a stepped form's hidden first
    // question, and the keys were sent as its answer). A focus on a choice, or none, gives
    // them to the draft. With no keys to give, the focus stays where the decision put it (on
    // a touch screen its dialog, so no on-screen keyboard covers its buttons: QA round 14 #10).
    const typed = (el) => !!el && (el.tagName === "TEXTAREA" || (el.tagName === "INPUT" && /^(text|search|email|url|tel|number|password)$/.test(el.type)));
    const inMode = (el) => !!el && el.id !== "composer-mode" && !!el.closest("#composer-mode");
    const since = performance.now();
    // Given as the focus arrives (focusin, before the next key), or when it is already there;
    // polled too, for the second's end.
    const give = () => {
      if (!held.open) return true;
      const el = document.activeElement;
      if (into && held.keys.length && !inMode(el) && performance.now() - since < 1000) return false;
      held.open = false;
      document.removeEventListener("focusin", give, true);
      if (into && inMode(el) && !typed(el)) {
        // In a task of its own: called from the wasm (parleyDecisionKeys), a key's handlers
        // would run nested in that call, after it, with the event's currentTarget gone.
        setTimeout(() => pressOn(el), 0);
        return true;
      }
      giveTo(into && typed(el) && inMode(el) ? el : null);
      return true;
    };
    document.addEventListener("focusin", give, true);
    const poll = () => { if (!give()) setTimeout(poll, 20); };
    poll();
  };
  // The decision focused a choice or a button (a confirm's No, a checkbox): the person was
  // writing, so the held keys are pressed on the decision's dialog, whose keys are the
  // draft's (a letter, a Space, a Backspace; shown in its strip), and the focus goes there.
  // Written into the draft directly, the first went to it unseen and the ones typed after were
  // dropped (QA round 21); pressed on the choice, a Space answered it. Not an Enter: the person
  // had not seen the decision back yet.
  const pressOn = (el) => {
    const mode = el.closest("#composer-mode") || el;
    if (held.keys.some((k) => k !== "Enter")) mode.focus();
    for (const k of held.keys.splice(0)) {
      if (k !== "Enter") mode.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true }));
    }
  };
  const giveTo = (el) => {
    const inField = !!el;
    const field = el || composer();
    if (!field) return;
    for (const k of held.keys.splice(0)) {
      if (k === "Enter") {
        // The decision's Enter moves on (its key handler says what it means); the draft's
        // would send it, which the person never asked of the draft.
        if (inField) field.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", code: "Enter", keyCode: 13, bubbles: true, cancelable: true }));
        continue;
      }
      const s = field.selectionStart, e = field.selectionEnd;
      if (s === null) {
        // A number or an email field has no selection to edit at: its end.
        field.value = k === "Backspace" ? field.value.slice(0, -1) : field.value + k;
      } else if (k === "Backspace") {
        if (s === e && s === 0) continue;
        field.setRangeText("", s === e ? s - 1 : s, e, "end");
      } else {
        field.setRangeText(k, s, e, "end");
      }
      field.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: k === "Backspace" ? "deleteContentBackward" : "insertText", data: k === "Backspace" ? null : k }));
    }
  };
  if (held.open) setTimeout(() => window.parleyDecisionKeys(false), 10000);
  document.addEventListener("keydown", (e) => {
    if (!held.open || e.isComposing || e.keyCode === 229 || e.ctrlKey || e.metaKey || e.altKey) return;
    const k = e.key;
    if ([...k].length !== 1 && k !== "Backspace" && k !== "Enter") return;
    const t = e.target;
    // Only a key that would land on the page or the draft: the sidebar's fields, the
    // decision's own fields once it is there, keep theirs. While the held keys wait for the
    // decision's field (giving), every key waits behind them: one typed there first would go
    // in before them ("AdLa ovelace").
    if (!held.giving && !(t === document.body || t === root || (t && t.id === "composer-input"))) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    held.keys.push(k);
  }, true);

  document.addEventListener("keydown", (e) => {
    if (e.isComposing || e.keyCode === 229 || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
    const k = e.key;
    const printable = [...k].length === 1;
    if (!printable && k !== "Backspace" && k !== "Enter") return;
    const t = composer();
    const el = document.activeElement;
    if (live() && followedLink(el, k)) {
      // The page is changing under the bar (its draft is about to be the new page's): the
      // key is held, as during any hand-off, and the bar's next update takes it (takeOver).
      root.removeAttribute("data-composer-live");
    }
    const row = live() ? rowOf(el, k) : "";
    if (row && usable(t) && t.dataset.session === row && rowKeys.text === "") {
      // Focused inside keydown, the textarea receives the key's text (Chromium).
      t.focus();
      return;
    }
    if (row && followedRow.href === "/s/" + row && performance.now() - followedRow.at < 2000) {
      e.preventDefault();
      if (rowKeys.session !== row) Object.assign(rowKeys, { session: row, text: "" });
      rowKeys.text += k;
      return;
    }
    if (live() && printable && k !== " " && onThread(el) && usable(t) && !t.closest(".is-hidden")) {
      // A letter typed while the thread holds the focus (a click on a message, or the ↓
      // button) is for the box, as in the chat apps people know: it went nowhere (QA round
      // 20's re-test). Focused inside keydown, the textarea receives the key's text.
      t.focus();
      return;
    }
    if (live()) {
      // The render that shows a decision hides the bar by a class; until Chromium's focus
      // fix-up (a task after that style update) the focus stays on the hidden textarea, and a
      // key typed in that moment edited nothing: it was lost. A closest() walk, not a style
      // read, so a key costs no style recalc.
      const hiddenBar = !!t && el === t && !!t.closest(".is-hidden");
      if (!unfocused(el) && !hiddenBar) return;
      if (hiddenBar || !usable(t)) {
        // A hidden bar (a decision took the input area) or a disabled one (a gate) takes
        // nothing: a key must never land where the person cannot see it. A decision that
        // has just replaced the bar takes the focus a frame later; a letter typed in that
        // frame went to the body. It is handed to the decision's area, whose key handler
        // knows a letter typed there before the person moved in is the draft's (never an
        // answer), and a Backspace, which takes a letter back. Not an Enter: on a decision
        // the person has not looked at it means nothing yet.
        const mode = document.getElementById("composer-mode");
        if (hiddenBar) {
          // Whatever it is, the hidden bar's own handlers must not read it: an Enter there
          // would send a draft the person can no longer see.
          e.preventDefault();
          e.stopPropagation();
        }
        if (!(printable || k === "Backspace") || !usable(mode)) return;
        e.preventDefault();
        mode.focus();
        mode.dispatchEvent(new KeyboardEvent("keydown", { key: k, code: e.code, bubbles: true, cancelable: true }));
        return;
      }
      // Focused inside keydown, the textarea receives the key's text (Chromium). An Enter
      // is not text: its keydown already went to the body, so the bar is given one.
      t.focus();
      if (k === "Enter" && !e.shiftKey) {
        e.preventDefault();
        t.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", code: "Enter", keyCode: 13, bubbles: true, cancelable: true }));
      }
      return;
    }
    if (editable(el) && !(el === t && k === "Enter" && !e.shiftKey)) {
      // Typing in the pre-rendered textarea: the browser edits it, and the input listener
      // below keeps the buffer in step. Its Enter would break the line: it is a send.
      return;
    } else if (!unfocused(el) && el !== t && !followedLink(el, k)) {
      return; // a button or a link has the focus: its keys are its own
    }
    if (document.querySelector(".composer-closed")) {
      // A bar closed on this page (a session that is not there, a browser without the
      // link) will never take these keys, and held, they went to the next page's bar: typed
      // unseen on "Session not found", they were the new session's first prompt. They are
      // dropped, with anything held before the page knew.
      early.text = "";
      early.sends.length = 0;
      return;
    }
    e.preventDefault();
    if (k === "Enter") {
      if (e.shiftKey) {
        early.text += "\n";
      } else {
        early.sends.push(early.text);
        early.text = "";
      }
    } else if (k === "Backspace") {
      early.text = [...early.text].slice(0, -1).join("");
    } else {
      early.text += k;
    }
    show();
  }, true);

  // The bar's own keydown enters the wasm, which runs every waiting goroutine before it
  // returns: a render due then (a decision arriving) can move the focus to the decision
  // inside the key's keydown, before the browser inserts the key's text, which then goes
  // nowhere (CI lost the "I" of "meanwhile I"). So after the bar's handlers (this listener
  // bubbles), a character (or a Backspace) whose keydown began on the bar and ended on the
  // decision goes where a letter typed on a decision that has just arrived goes: to the draft.
  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.isComposing || e.keyCode === 229 || e.ctrlKey || e.metaKey || e.altKey) return;
    const t = composer();
    const mode = document.getElementById("composer-mode");
    const el = document.activeElement;
    if (([...e.key].length !== 1 && e.key !== "Backspace") || !t || e.target !== t || el === t || !mode || !mode.contains(el)) return;
    e.preventDefault();
    mode.dispatchEvent(new KeyboardEvent("keydown", { key: e.key, code: e.code, bubbles: true, cancelable: true }));
  });

  // The Go program never returns while the page lives: if it does, a panic ended it, and the
  // page would look alive while nothing answers a key or a click. Say so, with a way out.
  // This script runs before wasm_exec.js (deferred), which defines globalThis.Go: a setter
  // in its place wraps run the moment the class exists, before app.js can call it.
  let GoClass;
  Object.defineProperty(globalThis, "Go", {
    configurable: true,
    get: () => GoClass,
    set: (c) => {
      GoClass = c;
      const run = c.prototype.run;
      c.prototype.run = function (instance) {
        window.parleyGo = this; // a test ends the program through it
        const done = run.call(this, instance);
        done.then(stopped, stopped);
        return done;
      };
    },
  });
  const stopped = () => {
    if (document.getElementById("crash-banner")) return;
    root.setAttribute("data-app-stopped", "true");
    const zh = (root.lang || "").startsWith("zh");
    const banner = document.createElement("div");
    banner.id = "crash-banner";
    banner.className = "crash-banner";
    banner.setAttribute("role", "alert");
    const text = document.createElement("span");
    text.textContent = zh
      ? "Parley 的页面出错并停止了响应。重新加载即可继续：已发送的内容都保存在服务器上。"
      : "Parley's page hit an error and stopped responding. Reload to go on: everything you sent is kept on the server.";
    const reload = document.createElement("button");
    reload.type = "button";
    reload.textContent = zh ? "重新加载" : "Reload";
    reload.addEventListener("click", () => location.reload());
    banner.append(text, reload);
    document.body.prepend(banner);
    reload.focus();
  };

  document.addEventListener("input", (e) => {
    const t = e.target;
    if (!live() && t && t.id === "composer-input" && !t.parleyShell) {
      early.text = t.value;
    }
  }, true);

  // The input method's composition open anywhere in the page, with the field's value before
  // it began: words handed back from a field whose decision ended mid-composition leave out
  // the reading not yet converted ("我叫wang": QA round 26). Cleared at its end.
  window.parleyComposition = null;
  document.addEventListener("compositionstart", (e) => {
    const t = e.target;
    window.parleyComposition = { target: t, before: t && "value" in t ? t.value : "" };
  }, true);
  document.addEventListener("compositionend", () => { window.parleyComposition = null; }, true);
})();
