// The console's webhook endpoints (PROTOCOL.md section 23): the list for a key with
// webhooks:read; create, edit, enable or disable, resend an event and delete for one with
// webhooks:write. A new endpoint's signing secret is shown once, as the server answers it once.
// A refusal is shown with its reason and message, and the form that was refused keeps what
// was typed. Values are only ever set as text (no HTML is built from them).
import { admin } from "/readergateway/v1/js/readergateway.js";

const $ = (id) => document.getElementById(id);
const page = { client: null, writable: false, endpoints: [], selected: null };

/** Shows the section for a key that may read endpoints (and its controls for one that may write them). */
export function showWebhooks(client, { readable, writable }) {
  page.client = client;
  page.writable = writable;
  $("webhooks").hidden = !readable;
  $("webhook-create-form").hidden = !writable;
  closePanels();
  hideSecret();
  if (readable) loadEndpoints();
}

/** Forgets everything shown (signing out). */
export function hideWebhooks() {
  page.client = null;
  page.endpoints = [];
  $("webhooks").hidden = true;
  $("webhooks-table").tBodies[0].replaceChildren();
  closePanels();
  hideSecret();
  say("");
}

/** What the server said when it refused: its reason and its own words. */
export function refusal(error) {
  const reason = error?.reason && error.reason !== "UNSPECIFIED" ? error.reason : error?.code;
  return `${reason ? `${reason}: ` : ""}${error?.message ?? String(error)}`;
}

/** The event types typed into a field: comma or space separated; none means all (`*`). */
export function typedEvents(text) {
  const types = text.split(/[\s,]+/).map((type) => type.trim()).filter(Boolean);
  return types.length > 0 ? types : ["*"];
}

/** The text of one endpoint's cells, by column class. */
export function endpointCells(endpoint) {
  const failingSince = Number(endpoint.failingSinceUnixMs ?? 0n);
  const events = endpoint.enabledEvents ?? [];
  return {
    url: endpoint.url,
    description: endpoint.description ?? "",
    events: events.length === 0 || events.includes("*") ? "all events" : events.join(", "),
    state: endpoint.enabled ? "enabled"
      : endpoint.disabledReason === "failing" ? "disabled: failing (no delivery answered 2xx for the retry window)"
      : `disabled: ${endpoint.disabledReason || "requested"}`,
    failing: failingSince > 0 ? `since ${new Date(failingSince).toISOString()}` : "",
    created: new Date(Number(endpoint.createdUnixMs ?? 0n)).toISOString(),
  };
}

function say(text, isError = false) {
  $("webhooks-result").textContent = text;
  $("webhooks-result").className = isError ? "error" : "";
}

async function loadEndpoints() {
  const client = page.client;
  try {
    const answer = await client.call("ListWebhookEndpoints", {});
    if (client !== page.client) return;
    page.endpoints = answer.endpoints ?? [];
    render();
  } catch (error) {
    if (client === page.client) say(`could not read the webhook endpoints: ${refusal(error)}`, true);
  }
}

function render() {
  $("webhooks-table").tBodies[0].replaceChildren(...page.endpoints.map(row));
  $("webhooks-empty").hidden = page.endpoints.length > 0;
  // An open panel follows its endpoint as just read, or closes when it is gone.
  if (page.selected) {
    const fresh = page.endpoints.find((endpoint) => endpoint.id === page.selected.id);
    if (fresh) page.selected = fresh; else closePanels();
  }
}

function row(endpoint) {
  const tr = document.createElement("tr");
  tr.dataset.endpoint = endpoint.id;
  tr.dataset.enabled = String(endpoint.enabled);
  const cells = endpointCells(endpoint);
  for (const name of ["url", "description", "events", "state", "failing", "created"]) {
    const td = document.createElement("td");
    td.className = name;
    td.textContent = cells[name];
    tr.append(td);
  }
  const actions = document.createElement("td");
  actions.className = "actions";
  if (page.writable) {
    actions.append(
      button("edit", "Edit", () => openPanel("webhook-edit-form", endpoint)),
      button(endpoint.enabled ? "disable" : "enable", endpoint.enabled ? "Disable" : "Enable", () => switchEndpoint(endpoint)),
      button("resend", "Resend an event", () => openPanel("webhook-resend-form", endpoint)),
      button("delete", "Delete", () => openPanel("webhook-delete", endpoint)),
    );
  }
  tr.append(actions);
  return tr;
}

function button(className, text, onClick) {
  const element = document.createElement("button");
  element.type = "button";
  element.className = className;
  element.textContent = text;
  element.addEventListener("click", onClick);
  return element;
}

// --- the panels under the table: one endpoint's edit, resend or delete at a time ----------

function openPanel(id, endpoint) {
  closePanels();
  page.selected = endpoint;
  say("");
  const name = endpoint.description ? `${endpoint.description} (${endpoint.url})` : endpoint.url;
  if (id === "webhook-edit-form") {
    $("webhook-edit-title").textContent = `Edit ${name}`;
    $("webhook-edit-description").value = endpoint.description ?? "";
    $("webhook-edit-events").value = (endpoint.enabledEvents ?? []).join(", ");
  } else if (id === "webhook-resend-form") {
    $("webhook-resend-title").textContent = `Send an event again to ${name} (the same event id)`;
  } else {
    $("webhook-delete-question").textContent =
      `Delete ${name} (${endpoint.id})? Its pending deliveries are dropped and its secret stops being used; this cannot be undone.`;
  }
  $(id).hidden = false;
}

function closePanels() {
  page.selected = null;
  for (const id of ["webhook-edit-form", "webhook-resend-form", "webhook-delete"]) $(id).hidden = true;
}

/** Calls `method` with `request` for the selected endpoint; true when it was answered. */
async function change(method, request, done) {
  const client = page.client;
  try {
    const answer = await client.call(method, request);
    if (client !== page.client) return false;
    say(done(answer));
    await loadEndpoints();
    return true;
  } catch (error) {
    if (client === page.client) say(`${method} refused: ${refusal(error)}`, true);
    return false;
  }
}

async function createEndpoint(event) {
  event.preventDefault();
  hideSecret();
  const request = {
    url: $("webhook-url").value.trim(),
    description: $("webhook-description").value.trim(),
    enabledEvents: typedEvents($("webhook-events").value),
  };
  say("creating…");
  const created = await change("CreateWebhookEndpoint", request, (answer) => {
    showSecret(answer.endpoint, answer.secret);
    return `created ${answer.endpoint.id} for ${answer.endpoint.url}`;
  });
  if (created) {
    for (const id of ["webhook-url", "webhook-description", "webhook-events"]) $(id).value = "";
  }
}

function showSecret(endpoint, secret) {
  $("webhook-secret-endpoint").textContent = `${endpoint.url} (${endpoint.id})`;
  $("webhook-secret-value").textContent = secret;
  $("webhook-secret").hidden = false;
}

function hideSecret() {
  $("webhook-secret-value").textContent = "";
  $("webhook-secret-endpoint").textContent = "";
  $("webhook-secret").hidden = true;
}

async function saveEdit(event) {
  event.preventDefault();
  const endpoint = page.selected;
  if (!endpoint) return;
  const description = $("webhook-edit-description").value.trim();
  const request = { endpointId: endpoint.id, enabledEvents: typedEvents($("webhook-edit-events").value) };
  // An empty description keeps it on the server: emptying one says so.
  if (description !== "") request.description = description;
  else if (endpoint.description) request.clearDescription = true;
  if (await change("UpdateWebhookEndpoint", request, (answer) => `saved ${answer.endpoint.id}`)) closePanels();
}

function switchEndpoint(endpoint) {
  const enable = !endpoint.enabled;
  const enabledChange = enable ? admin.WebhookEndpointSwitch.ENABLE : admin.WebhookEndpointSwitch.DISABLE;
  closePanels();
  return change("UpdateWebhookEndpoint", { endpointId: endpoint.id, enabledChange },
    (answer) => `${enable ? "enabled" : "disabled"} ${answer.endpoint.id}`);
}

async function resend(event) {
  event.preventDefault();
  const endpoint = page.selected;
  if (!endpoint) return;
  const eventId = $("webhook-resend-event").value.trim();
  if (await change("ResendEvent", { eventId, endpointId: endpoint.id }, () => `queued ${eventId} again for ${endpoint.id}`)) {
    $("webhook-resend-event").value = "";
    closePanels();
  }
}

async function deleteEndpoint() {
  const endpoint = page.selected;
  if (!endpoint) return;
  if (await change("DeleteWebhookEndpoint", { endpointId: endpoint.id }, (answer) => `deleted ${answer.endpoint.id}`)) closePanels();
}

$("webhook-create-form").addEventListener("submit", createEndpoint);
$("webhook-edit-form").addEventListener("submit", saveEdit);
$("webhook-edit-cancel").addEventListener("click", closePanels);
$("webhook-resend-form").addEventListener("submit", resend);
$("webhook-resend-cancel").addEventListener("click", closePanels);
$("webhook-delete-confirm").addEventListener("click", deleteEndpoint);
$("webhook-delete-cancel").addEventListener("click", closePanels);
$("webhook-secret-dismiss").addEventListener("click", hideSecret);
$("webhooks-refresh").addEventListener("click", () => { say(""); loadEndpoints(); });
