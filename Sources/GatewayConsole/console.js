// The fleet console: sign in (the secret key is exchanged for an HttpOnly session cookie at
// PUT /console/session and never kept), then one page per location (#location=<id>) with
// every reader, live from FleetAdmin.WatchFleet over the WebSocket binding; a reader's
// ownership history, register by code and release go over the same connection, with the
// session's CSRF token. The account's keys and webhook endpoints (webhooks.js) are listed
// under the fleet for a key that may read them.
import { AdminClient, GatewayConnection, oneofCase, admin } from "/readergateway/v1/js/readergateway.js";
import { readerCells, historyLine } from "/console/fleet-view.js";
import { showWebhooks, hideWebhooks } from "/console/webhooks.js";

const $ = (id) => document.getElementById(id);
const state = { session: null, client: null, readers: new Map(), locations: [], watching: null };

async function currentSession() {
  const response = await fetch("/console/session", { credentials: "same-origin" });
  const session = response.ok ? await response.json() : null;
  return session?.signed_in ? session : null;
}

async function signIn(key) {
  const response = await fetch("/console/session", {
    method: "PUT", credentials: "same-origin", headers: { "Content-Type": "text/plain" }, body: key,
  });
  const answer = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(answer.error ?? `HTTP ${response.status}`);
  return answer;
}

async function signOut() {
  const csrf = state.session?.csrf_token ?? "";
  stopWatching();
  await fetch("/console/session", { method: "DELETE", credentials: "same-origin", headers: { "X-CSRF-Token": csrf } });
  showSignIn();
}

function showSignIn() {
  state.session = null;
  state.readers.clear();
  state.locations = [];
  $("fleet").hidden = true;
  $("signout").hidden = true;
  $("account").textContent = "";
  $("readers").tBodies[0].replaceChildren();
  $("locations").replaceChildren();
  hideWebhooks();
  setLive("idle", "signed out");
  $("signin").hidden = false;
}

function showFleet(session) {
  state.session = session;
  $("signin").hidden = true;
  $("fleet").hidden = false;
  $("signout").hidden = false;
  $("account").textContent = `${session.account} · ${session.key_name ?? "account key"}`;
  // What the key may do decides what the page offers: a read-only key sees the fleet, its
  // history and (with keys:read, webhooks:read) the keys and webhook endpoints, and no
  // button that would be refused.
  $("register-form").hidden = !may("readers", "write");
  const connection = new GatewayConnection(`wss://${location.host}/readergateway/v1/websocket`);
  state.client = new AdminClient(connection, null, { csrfToken: session.csrf_token });
  watch();
  showKeys();
  showWebhooks(state.client, { readable: may("webhooks", "read"), writable: may("webhooks", "write") });
}

/** Whether the signed-in key holds `level` (read or write) on `resource`. */
function may(resource, level) {
  const pairs = new Map((state.session?.permissions ?? "").split(",").filter(Boolean).map((pair) => pair.split("=")));
  const held = pairs.get(resource);
  return held === "write" || (level === "read" && held === "read");
}

/** The account's keys (never their secrets), for a key that may read them; gatewayctl keys manages them. */
async function showKeys() {
  $("keys").hidden = !may("keys", "read");
  if ($("keys").hidden || !state.client) return;
  try {
    const answer = await state.client.call("ListApiKeys", {});
    $("keys-table").tBodies[0].replaceChildren(...(answer.keys ?? []).map((key) => {
      const tr = document.createElement("tr");
      tr.dataset.key = key.id;
      const permissions = Object.entries(key.permissions ?? {})
        .filter(([, level]) => level === 2 || level === 3)
        .map(([resource, level]) => `${resource}=${level === 3 ? "write" : "read"}`).join(", ");
      const cells = {
        name: key.name, id: key.id, permissions: permissions || "none",
        locations: (key.locationIds ?? []).join(", ") || "all",
        "last-used": Number(key.lastUsedUnixMs ?? 0) > 0 ? new Date(Number(key.lastUsedUnixMs)).toISOString() : "never",
        state: Number(key.revokedUnixMs ?? 0) > 0 ? "revoked"
          : Number(key.previousSecretExpiresUnixMs ?? 0) > 0 ? `rolled; old secret until ${new Date(Number(key.previousSecretExpiresUnixMs)).toISOString()}` : "active",
      };
      for (const [name, text] of Object.entries(cells)) {
        const td = document.createElement("td");
        td.className = name;
        td.textContent = text;
        tr.append(td);
      }
      return tr;
    }));
  } catch (error) {
    $("keys-result").textContent = `could not read the keys: ${error.reason ?? ""} ${error.message}`;
  }
}

function setLive(kind, text) {
  $("live").dataset.state = kind;
  $("live").textContent = text;
}

function stopWatching() {
  state.watching?.abort();
  state.watching = null;
  state.client?.close();
  state.client = null;
}

/** WatchFleet until it ends; then again after a second (a fresh snapshot), while signed in. */
function watch() {
  if (!state.client) return;
  const controller = new AbortController();
  state.watching = controller;
  setLive("connecting", "connecting");
  let fresh = new Map();
  state.client.stream("WatchFleet", {}, (event) => {
    switch (oneofCase(admin.WatchFleetEvent, event, "event")) {
      case "snapshot":
        for (const reader of event.snapshot.readers ?? []) fresh.set(reader.reader.id, reader);
        if ((event.snapshot.locations ?? []).length > 0) state.locations = event.snapshot.locations;
        if (event.snapshot.complete) {
          state.readers = fresh;
          fresh = new Map();
          setLive("live", "live");
          render(new Set());
        }
        break;
      case "readerChanged":
        state.readers.set(event.readerChanged.reader.id, event.readerChanged);
        render(new Set([event.readerChanged.reader.id]));
        if (!state.locations.some((l) => l.id === event.readerChanged.reader.locationId)) refreshLocations();
        break;
      case "readerRemoved":
        state.readers.delete(event.readerRemoved);
        render(new Set());
        break;
    }
  }, { signal: controller.signal }).catch((error) => {
    if (controller.signal.aborted) return;
    if (error.reason === "SECRET_KEY_INVALID" || error.reason === "SECRET_KEY_RETIRED") { showSignIn(); return; }
    setLive("lost", `reconnecting (${error.reason ?? error.message})`);
    setTimeout(() => { if (state.watching === controller) watch(); }, 1000);
  });
}

/** Reads the locations again (a reader appeared at one this page does not know yet). */
async function refreshLocations() {
  if (state.refreshingLocations || !state.client) return;
  state.refreshingLocations = true;
  try {
    const answer = await state.client.call("ListLocations", { limit: 1000 });
    state.locations = answer.locations ?? [];
    render(new Set());
  } catch (error) {
    $("action-result").textContent = `could not read the locations: ${error.message}`;
  } finally {
    state.refreshingLocations = false;
  }
}

function currentLocation() {
  const wanted = new URLSearchParams(location.hash.slice(1)).get("location");
  const byName = [...state.locations].sort((a, b) => a.displayName.localeCompare(b.displayName));
  return byName.find((l) => l.id === wanted) ?? byName[0] ?? null;
}

function render(changed) {
  const here = currentLocation();
  // The page shown stays the page shown (a location created meanwhile may sort first).
  if (here && !new URLSearchParams(location.hash.slice(1)).get("location")) {
    history.replaceState(null, "", `#location=${encodeURIComponent(here.id)}`);
  }
  const nav = $("locations");
  const byName = [...state.locations].sort((a, b) => a.displayName.localeCompare(b.displayName));
  nav.replaceChildren(...byName.map((l) => {
    const link = document.createElement("a");
    link.href = `#location=${encodeURIComponent(l.id)}`;
    const count = [...state.readers.values()].filter((r) => r.reader.locationId === l.id).length;
    link.textContent = `${l.displayName} (${count})`;
    if (here && l.id === here.id) link.setAttribute("aria-current", "page");
    return link;
  }));
  $("location-title").textContent = here ? here.displayName : "No locations yet";
  const readers = [...state.readers.values()]
    .filter((r) => here && r.reader.locationId === here.id)
    .sort((a, b) => (a.reader.label || "").localeCompare(b.reader.label || ""));
  const body = $("readers").tBodies[0];
  body.replaceChildren(...readers.map((reader) => row(reader, changed.has(reader.reader.id))));
  $("empty").hidden = readers.length > 0;
}

function row(fleetReader, changed) {
  const tr = document.createElement("tr");
  tr.dataset.reader = fleetReader.reader.id;
  if (changed) tr.className = "changed";
  const cells = readerCells(fleetReader);
  for (const name of ["label", "serial", "device", "status", "activity", "holder", "since", "battery", "version"]) {
    const td = document.createElement("td");
    td.className = name;
    td.textContent = cells[name];
    if (name === "status") td.dataset.status = cells.status;
    tr.append(td);
  }
  const actions = document.createElement("td");
  actions.className = "actions";
  const history = document.createElement("button");
  history.type = "button";
  history.className = "history";
  history.textContent = "History";
  history.addEventListener("click", () => showHistory(fleetReader));
  actions.append(history);
  if (fleetReader.holder && may("ownership", "write")) {
    const release = document.createElement("button");
    release.type = "button";
    release.className = "release";
    release.textContent = "Release";
    release.addEventListener("click", () => releaseReader(fleetReader));
    actions.append(release);
  }
  tr.append(actions);
  return tr;
}

async function showHistory(fleetReader) {
  $("history").hidden = false;
  $("history-title").textContent = `Ownership history of ${fleetReader.reader.label || fleetReader.reader.id}`;
  try {
    const answer = await state.client.call("ListOwnershipHistory", { readerId: fleetReader.reader.id, limit: 50 });
    $("history-list").replaceChildren(...(answer.entries ?? []).map((entry) => {
      const item = document.createElement("li");
      item.textContent = historyLine(entry);
      return item;
    }));
  } catch (error) {
    $("history-list").replaceChildren(document.createTextNode(`could not read the history: ${error.message}`));
  }
}

async function releaseReader(fleetReader) {
  try {
    await state.client.call("ForceReleaseReader", { readerId: fleetReader.reader.id });
    $("action-result").textContent = `released ${fleetReader.reader.label}`;
  } catch (error) {
    $("action-result").textContent = `release failed: ${error.reason ?? ""} ${error.message}`;
  }
}

async function registerReader(event) {
  event.preventDefault();
  const here = currentLocation();
  if (!here) { $("register-result").textContent = "create a location first (gatewayctl locations create)"; return; }
  $("register-result").textContent = "registering…";
  try {
    const answer = await state.client.call("RegisterReader", { registrationCode: $("code").value.trim(), label: $("label").value.trim(), locationId: here.id });
    $("register-result").textContent = `registered ${answer.reader.label} (${answer.reader.id})`;
    $("code").value = "";
    $("label").value = "";
  } catch (error) {
    $("register-result").textContent = `not registered: ${error.reason ?? ""} ${error.message}`;
  }
}

$("signin-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("signin-error").textContent = "";
  const key = $("key").value;
  $("key").value = "";
  try {
    showFleet(await signIn(key));
  } catch (error) {
    $("signin-error").textContent = error.message;
  }
});
$("signout").addEventListener("click", () => signOut());
$("register-form").addEventListener("submit", registerReader);
window.addEventListener("hashchange", () => render(new Set()));

const session = await currentSession().catch(() => null);
if (session) showFleet(session); else showSignIn();
