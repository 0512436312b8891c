// The objects a page sees, in Stripe Terminal JS's form: snake_case fields, string enums,
// `object` names, amounts and times as numbers (never BigInt). The wire (proto/) keeps its
// own shapes; this file maps between the two, both ways, and checks what a page passes.
import { DeviceType, ReaderActivity, ReaderNetworkStatus, UpdateDurationEstimate } from "./generated/readergateway/v1/common.js";
import { DisconnectReason } from "./generated/readergateway/v1/sdk.js";
import { RPCError } from "./errors.js";

/** Stripe's `device_type` names for the wire's DeviceType (the gateway's own where Stripe has none). */
export const DEVICE_TYPES = Object.freeze({
  [DeviceType.BBPOS_WISEPOS_E]: "bbpos_wisepos_e",
  [DeviceType.STRIPE_S700]: "stripe_s700",
  [DeviceType.STRIPE_S710]: "stripe_s710",
  [DeviceType.SIMULATED_WISEPOS_E]: "simulated_wisepos_e",
  [DeviceType.MOBILE]: "mobile",
  [DeviceType.TAP_TO_PAY]: "mobile_phone_reader",
  [DeviceType.BBPOS_WISEPAD3]: "bbpos_wisepad3",
  [DeviceType.STRIPE_M2]: "stripe_m2",
  [DeviceType.BBPOS_CHIPPER2X_BT]: "bbpos_chipper2x",
});

// An enum value's name in lower case; null for 0 (UNSPECIFIED: the wire did not say).
const lower = (enumeration, value) => (value ? enumeration.nameOf(value)?.toLowerCase() ?? null : null);

/** A wire int64/uint64 (BigInt) or a number as a number; refuses what a number cannot hold exactly. */
export function safeNumber(value, field) {
  if (value === undefined || value === null) return 0;
  const number = Number(value);
  if (!Number.isSafeInteger(number)) {
    throw RPCError.of("MALFORMED_MESSAGE", `${field} is ${value}, beyond Number.MAX_SAFE_INTEGER: the page cannot hold it exactly`);
  }
  return number;
}

/** A Unix time in ms from the wire as a number, or null for none (0). */
function time(value, field) {
  const number = safeNumber(value, field);
  return number === 0 ? null : number;
}

/** A software update (ReaderSoftwareUpdate) as Stripe's `reader_software_update`, or null. */
export function softwareUpdate(update) {
  if (!update || !update.version) return null;
  return {
    object: "reader_software_update",
    version: update.version,
    device_type: DEVICE_TYPES[update.deviceType] ?? null,
    components: [...(update.components ?? [])],
    duration_estimate: lower(UpdateDurationEstimate, update.durationEstimate),
    required: Boolean(update.required),
    required_at: time(update.requiredAtUnixMs, "available_update.required_at"),
  };
}

/**
 * A reader as Stripe's `terminal.reader`, plus what the gateway adds: `activity`,
 * `battery_level`, `simulated`, `available_update` and `discovery_id` (the discovery it came
 * from; connectReader sends it back).
 */
export function reader(wire, discoveryId = null) {
  if (!wire) return null;
  return {
    object: "terminal.reader",
    id: wire.id,
    label: wire.label ?? "",
    serial_number: wire.serialNumber ?? "",
    device_type: DEVICE_TYPES[wire.deviceType] ?? null,
    device_sw_version: wire.softwareVersion || null,
    ip_address: wire.ipAddress || null,
    location: wire.locationId || null,
    status: lower(ReaderNetworkStatus, wire.networkStatus),
    last_seen_at: time(wire.lastSeenUnixMs, "reader.last_seen_at"),
    livemode: false,
    metadata: {},
    action: null,
    activity: lower(ReaderActivity, wire.activity),
    battery_level: typeof wire.batteryLevel === "number" ? wire.batteryLevel : null,
    simulated: Boolean(wire.simulated),
    available_update: softwareUpdate(wire.availableUpdate),
    discovery_id: discoveryId,
  };
}

/** A disconnect reason's name as the page sees it ("replaced", "reader_lost", ...). */
export function disconnectReason(value) {
  return lower(DisconnectReason, value) ?? `unknown_${value}`;
}

/**
 * The one error a reader loss stands for: the event carries it, and a reader command made
 * before the next connect resolves with it (so a loss never reads as two reasons).
 */
export function lossError(reason, message) {
  switch (reason) {
  case "replaced": return RPCError.of("READER_CONNECTED_TO_ANOTHER_SESSION", message);
  case "reader_lost": return RPCError.of("READER_OFFLINE", message);
  case "session_expired": return RPCError.of("SESSION_EXPIRED", message);
  case "reader_unregistered": return RPCError.of("READER_NOT_FOUND", message);
  default: return RPCError.of("NOT_CONNECTED_TO_READER", message);
  }
}

/** A collected payment method (the wire's PaymentMethod) as Stripe's `card_present` payment method. */
export function paymentMethod(wire) {
  if (!wire) return null;
  const card = {
    brand: wire.brand || null,
    last4: wire.last4 || null,
    exp_month: wire.expMonth || null,
    exp_year: wire.expYear || null,
    read_method: wire.readMethod || null,
  };
  return { object: "payment_method", id: wire.id || null, type: "card_present", card_present: card };
}

/**
 * A PaymentIntent-like object: Stripe's `payment_intent` fields the gateway knows.
 * `status` is "requires_payment_method" before a collect, "requires_confirmation" after
 * one, then whatever the reader answered to processPayment ("succeeded").
 */
export function paymentIntent({ id, client_secret = null, amount = null, currency = null, status, payment_method = null, amount_received = 0 }) {
  return {
    object: "payment_intent",
    id,
    client_secret,
    amount,
    currency,
    status,
    amount_received,
    payment_method: payment_method?.id ?? null,
    sdk_payment_details: payment_method,
  };
}

// --- what a page passes -------------------------------------------------------------

const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

/** `value` as a non-negative safe integer amount, or an INVALID_REQUEST naming `argument`. */
export function amountArgument(value, argument, { optional = false } = {}) {
  if (value === undefined && optional) return 0;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    const shown = typeof value === "bigint" ? `${value}n` : JSON.stringify(value) ?? String(value);
    throw RPCError.argument(argument, `must be a whole number of the currency's smallest unit, 0 to ${Number.MAX_SAFE_INTEGER}, not ${shown}`);
  }
  return value;
}

/** A string argument (optional: undefined or null read as ""). */
export function stringArgument(value, argument, { optional = false } = {}) {
  if ((value === undefined || value === null) && optional) return "";
  if (typeof value !== "string") throw RPCError.argument(argument, `must be a string, not ${describe(value)}`);
  return value;
}

/** A boolean argument (undefined reads as `fallback`). */
export function booleanArgument(value, argument, fallback = false) {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "boolean") throw RPCError.argument(argument, `must be true or false, not ${describe(value)}`);
  return value;
}

/**
 * A discovery filter, `{ reader_id }` or `{ serial_number }` (exactly one, a non-empty
 * string), as the wire's DiscoveryFilter; null when optional and absent.
 */
export function discoveryFilterArgument(value, argument, { optional = false } = {}) {
  if ((value === undefined || value === null) && optional) return null;
  if (!isObject(value)) throw RPCError.argument(argument, `must be { reader_id } or { serial_number }, not ${describe(value)}`);
  const readerId = stringArgument(value.reader_id, `${argument}.reader_id`, { optional: true });
  const serialNumber = stringArgument(value.serial_number, `${argument}.serial_number`, { optional: true });
  if (readerId !== "" && serialNumber !== "") throw RPCError.argument(argument, "names both reader_id and serial_number; set exactly one of them");
  if (readerId === "" && serialNumber === "") throw RPCError.argument(argument, "must name a reader: { reader_id: \"tmr_…\" } or { serial_number: \"…\" }");
  return { readerId, serialNumber };
}

/** An options object (undefined or null read as {}). */
export function optionsArgument(value, argument) {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw RPCError.argument(argument, `must be an object, not ${describe(value)}`);
  return value;
}

/** What a value is, for an error message. */
export function describe(value) {
  if (value === null) return "null";
  if (value === undefined) return "undefined (nothing was passed)";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === "bigint") return `the BigInt ${value}n`;
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}

/**
 * The payment intent collectPaymentMethod is given: a client secret ("pi_…_secret_…"), a
 * payment intent id ("pi_…"), or an object { id, amount, currency } (a PaymentIntent as
 * your backend returned it; `client_secret` stands in for `id`).
 */
export function intentArgument(value, argument) {
  if (typeof value === "string") {
    const id = value.includes("_secret_") ? value.slice(0, value.indexOf("_secret_")) : value;
    if (!/^[A-Za-z0-9_]+$/.test(id) || id === "") {
      throw RPCError.argument(argument, `must be a PaymentIntent's client secret ("pi_…_secret_…"), its id, or { id, amount, currency }, not ${describe(value)}`);
    }
    return { id, client_secret: value.includes("_secret_") ? value : null, amount: null, currency: null };
  }
  if (!isObject(value)) {
    throw RPCError.argument(argument, `must be a PaymentIntent's client secret ("pi_…_secret_…"), its id, or { id, amount, currency }, not ${describe(value)}`);
  }
  const secret = stringArgument(value.client_secret, `${argument}.client_secret`, { optional: true });
  const id = value.id === undefined && secret ? intentArgument(secret, `${argument}.client_secret`).id : stringArgument(value.id, `${argument}.id`);
  if (id === "") throw RPCError.argument(`${argument}.id`, "must name the PaymentIntent (\"pi_…\"), not be empty");
  const amount = value.amount === undefined || value.amount === null ? null : amountArgument(value.amount, `${argument}.amount`);
  const currency = value.currency === undefined || value.currency === null ? null : stringArgument(value.currency, `${argument}.currency`);
  return { id, client_secret: secret || null, amount, currency };
}

/** setReaderDisplay's argument ({ type: "cart", cart: { line_items, tax, total, currency } }) as the wire's Cart. */
export function cartArgument(value, argument) {
  if (!isObject(value)) throw RPCError.argument(argument, `must be { type: "cart", cart: { line_items, tax, total, currency } }, not ${describe(value)}`);
  if (value.type !== "cart") throw RPCError.argument(`${argument}.type`, `must be "cart" (the only display the gateway shows), not ${describe(value.type)}`);
  const cart = value.cart;
  if (!isObject(cart)) throw RPCError.argument(`${argument}.cart`, `must be { line_items, tax, total, currency }, not ${describe(cart)}`);
  const items = cart.line_items ?? [];
  if (!Array.isArray(items)) throw RPCError.argument(`${argument}.cart.line_items`, `must be an array, not ${describe(items)}`);
  return {
    currency: stringArgument(cart.currency, `${argument}.cart.currency`),
    lineItems: items.map((item, index) => {
      const at = `${argument}.cart.line_items[${index}]`;
      if (!isObject(item)) throw RPCError.argument(at, `must be { description, amount, quantity }, not ${describe(item)}`);
      return {
        description: stringArgument(item.description, `${at}.description`),
        quantity: BigInt(item.quantity === undefined ? 1 : amountArgument(item.quantity, `${at}.quantity`)),
        amount: BigInt(amountArgument(item.amount, `${at}.amount`)),
      };
    }),
    tax: BigInt(amountArgument(cart.tax, `${argument}.cart.tax`, { optional: true })),
    total: BigInt(amountArgument(cart.total, `${argument}.cart.total`)),
  };
}

/** A reader argument of connectReader: a `terminal.reader` from discoverReaders. */
export function readerArgument(value, argument) {
  if (!isObject(value) || typeof value.id !== "string" || value.id === "") {
    throw RPCError.argument(argument, `must be a reader from discoverReaders (an object with an id), not ${describe(value)}`);
  }
  return value;
}
