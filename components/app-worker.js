// Parley's service worker (docs/pwa.md). go-app fills in the version and the files to cache.
// -----------------------------------------------------------------------------
// Caching: the shell works with the server stopped
// -----------------------------------------------------------------------------
const cacheName = "app-" + "{{.Version}}";
const resourcesToCache = {{.ResourcesToCache}};

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    // One by one: a file missing from web/ must not keep the worker from installing.
    const cache = await caches.open(cacheName);
    await Promise.all(resourcesToCache.map((url) =>
      keep(cache, url).catch((err) => console.warn("not cached:", url, err))));
    await self.skipWaiting();
  })());
});

// keep caches url, unless its answer is marked no-store: a page written for one person (a
// session's page with its messages, docs/seed.md) is never kept, to be served to anyone.
async function keep(cache, url) {
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error("status " + response.status);
  }
  if ((response.headers.get("Cache-Control") || "").includes("no-store")) {
    return;
  }
  await cache.put(url, response);
}

// As go-app does, the clean-up and the claim run outside waitUntil: go-app's page takes a
// worker that reaches "activated" while a worker already controls the page for an update, and
// reloads; claiming before that state would make the first install look like one.
self.addEventListener("activate", async () => {
  for (const key of await caches.keys()) {
    if (key !== cacheName) {
      await caches.delete(key);
    }
  }
  await self.clients.claim();
});

// The API and the socket always go to the network: their failures are the page's to show.
function passThrough(url) {
  return url.origin !== self.location.origin ||
    url.pathname.startsWith("/api/") || url.pathname === "/ws";
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") {
    return;
  }
  const url = new URL(request.url);
  if (passThrough(url)) {
    return;
  }
  if (request.mode === "navigate") {
    event.respondWith(navigate(request, url));
    return;
  }
  event.respondWith(cacheFirst(request));
});

async function cacheFirst(request) {
  const cached = await caches.match(request);
  return cached || fetch(request);
}

// A page: "/" comes from the cache, as go-app does. Every other route of the app (a session,
// any screen) goes to the network, and when the server cannot be reached it gets the cached
// shell, which the wasm routes by the address: no route ever shows "This site can't be
// reached" once the app was loaded once.
async function navigate(request, url) {
  if (url.pathname === "/" && url.search === "") {
    const cached = await caches.match("/");
    if (cached) {
      return cached;
    }
  }
  try {
    return await fetch(request);
  } catch (err) {
    const shell = await caches.match("/");
    if (shell) {
      return shell;
    }
    throw err;
  }
}

// -----------------------------------------------------------------------------
// Notifications: a decision someone should answer
// -----------------------------------------------------------------------------
// A notification is {session, decision, title, body, tag, url} (protocol.Notification). It
// comes from a page that heard it from the server (message "parley:notify") or from a Web
// Push (push event). The tag is the thread's, so a second ask in one thread replaces the
// first; a decision already shown (both paths deliver it) is not shown again.
//
// A decision answered after it was notified (on this device or another) is withdrawn: the
// server sends {session, decision, tag, withdrawn: true} the same two ways, and its
// notification closes. A withdrawal can overtake the ask it takes back (two pushes, or a
// push and a page), so the decisions withdrawn are kept and never shown afterwards.
const shownDecisions = new Set();
const withdrawnDecisions = new Set();

async function show(n) {
  if (!n) {
    return;
  }
  if (n.withdrawn) {
    await withdraw(n.decision, n.tag);
    return;
  }
  if (!n.title || shownDecisions.has(n.decision) || withdrawnDecisions.has(n.decision)) {
    return;
  }
  shownDecisions.add(n.decision);
  await self.registration.showNotification(n.title, {
    body: n.body || "",
    tag: n.tag || n.session,
    renotify: true,
    icon: "/web/icon-192.png",
    badge: "/web/icon-192.png",
    data: { url: n.url || "/", session: n.session, decision: n.decision },
  });
}

self.addEventListener("push", (event) => {
  let n = null;
  try {
    n = event.data ? event.data.json() : null;
  } catch {
    n = null;
  }
  event.waitUntil(show(n));
});

self.addEventListener("message", (event) => {
  const msg = event.data || {};
  switch (msg.type) {
    case "parley:notify":
      event.waitUntil(show(msg.notification));
      break;
    case "parley:close":
      // The decision was seen here, or answered (here or elsewhere): its notification goes.
      event.waitUntil(msg.withdrawn ? withdraw(msg.decision, msg.tag) : closeDecision(msg.decision));
      break;
    case "parley:open":
      // What a click on the notification tagged msg.tag does, for a page that must act it
      // out (the browser tests: a headless browser has no notification to click).
      event.waitUntil(openTagged(msg.tag));
      break;
  }
});

async function closeDecision(decision, tag) {
  const filter = tag ? { tag } : undefined;
  for (const n of await self.registration.getNotifications(filter)) {
    if (n.data && n.data.decision === decision) {
      n.close();
    }
  }
}

// withdraw closes the notification of a decision that was answered: the one with its tag,
// and only while it still shows that decision (a later ask in the same thread replaced it
// otherwise, and stays).
async function withdraw(decision, tag) {
  if (!decision) {
    return;
  }
  withdrawnDecisions.add(decision);
  await closeDecision(decision, tag);
}

async function openTagged(tag) {
  for (const n of await self.registration.getNotifications({ tag })) {
    n.close();
    await openThread(n.data && n.data.url);
  }
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(openThread(event.notification.data && event.notification.data.url));
});

// openThread shows the thread a notification is about: an open window of the app navigates
// there (go-app's in-app navigation, which keeps the page), else a new window opens on it.
async function openThread(url) {
  url = url || "/";
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  windows.sort((a, b) => Number(b.focused) - Number(a.focused));
  for (const client of windows) {
    try {
      await client.focus();
    } catch {
      // Focusing needs the click's user activation; the navigation below still happens.
    }
    client.postMessage({ goapp: { type: "notification", path: url } });
    return;
  }
  if (self.clients.openWindow) {
    await self.clients.openWindow(url);
  }
}
