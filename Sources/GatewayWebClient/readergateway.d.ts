// Types of the browser library (readergateway.js), served beside it at
// https://<gateway>/readergateway/v1/js/readergateway.d.ts. Shapes follow Stripe Terminal JS:
// methods and callbacks camelCase, every object snake_case with string enums; results are
// `{ ... } | { error }`, never a rejection. Reference: docs/client.md.

/** The reader connection's status (Terminal JS's ConnectionStatus). */
export type ConnectionStatus = "connecting" | "connected" | "not_connected";

/** The payment's status (Terminal JS's PaymentStatus). */
export type PaymentStatus = "not_ready" | "ready" | "waiting_for_input" | "processing";

/** A reader's model: Stripe's names, and `mobile` for a mobile reader Stripe has no name for. */
export type DeviceType =
  | "bbpos_wisepos_e" | "stripe_s700" | "stripe_s710" | "simulated_wisepos_e" | "mobile"
  | "mobile_phone_reader" | "bbpos_wisepad3" | "stripe_m2" | "bbpos_chipper2x";

/** What a reader is doing (the gateway's addition). */
export type ReaderActivity = "idle" | "collecting" | "confirming" | "updating" | "rebooting";

/** Why a reader was lost. */
export type DisconnectReason =
  | "replaced" | "reader_lost" | "reboot_requested" | "admin_released" | "session_expired" | "reader_unregistered"
  | "store_rolled_back";

/** A failed call. `code` is the gRPC status name, `reason` the gateway's ErrorReason name. */
export interface ReaderGatewayError extends Error {
  readonly name: "RPCError";
  /** "INVALID_ARGUMENT", "ABORTED", "UNAVAILABLE", "PERMISSION_DENIED", ... */
  code: string;
  /** "READER_BUSY", "READER_OFFLINE", "INVALID_REQUEST", "ORIGIN_NOT_ALLOWED", ... */
  reason: string;
  /** What happened and what to do. */
  message: string;
  /** For a bad argument: which one ("collectPaymentMethod's clientSecret", "options.fail_if_in_use"). */
  argument?: string;
  /** For a rate limit's refusal (AUTHENTICATION_RATE_LIMITED, RATE_LIMITED): how many ms the same call stays refused. */
  retryAfterMs?: number;
  /** For a declined card (CARD_DECLINED), as Terminal JS's errors: "generic_decline", "insufficient_funds", "expired_card", ... */
  decline_code?: string;
  readonly isRetryable: boolean;
  readonly isRetryableForIdempotentCall: boolean;
  toJSON(): { code: string; reason: string; message: string; argument?: string; retryAfterMs?: number; decline_code?: string };
}

/** Every failed call resolves with this (Terminal JS's ErrorResponse). */
export interface ErrorResponse {
  error: ReaderGatewayError;
}

/** A software update waiting for a reader. */
export interface ReaderSoftwareUpdate {
  object: "reader_software_update";
  version: string;
  device_type: DeviceType | null;
  components: string[];
  duration_estimate: "less_than_one_minute" | "one_to_two_minutes" | "two_to_five_minutes" | "five_to_fifteen_minutes" | null;
  required: boolean;
  /** Unix time in ms, or null. */
  required_at: number | null;
}

/** A reader (Stripe's `terminal.reader`), plus the gateway's fields after `action`. */
export interface Reader {
  object: "terminal.reader";
  id: string;
  label: string;
  serial_number: string;
  device_type: DeviceType | null;
  device_sw_version: string | null;
  ip_address: string | null;
  /** The location's id (tml_…). */
  location: string | null;
  status: "online" | "offline" | null;
  /** Unix time in ms of the reader's last heartbeat, or null. */
  last_seen_at: number | null;
  livemode: false;
  metadata: Record<string, string>;
  action: null;
  activity: ReaderActivity | null;
  /** 0 to 1; null on mains power. */
  battery_level: number | null;
  simulated: boolean;
  available_update: ReaderSoftwareUpdate | null;
  /** The discovery this reader came from; connectReader sends it back (STALE_DISCOVERY when superseded). */
  discovery_id: string | null;
}

/** The card a collect read (Stripe's `card_present` payment method). */
export interface PaymentMethod {
  object: "payment_method";
  id: string | null;
  type: "card_present";
  card_present: {
    brand: string | null;
    last4: string | null;
    exp_month: number | null;
    exp_year: number | null;
    read_method: string | null;
  };
}

/** A PaymentIntent-like object: the fields of Stripe's `payment_intent` the gateway knows. */
export interface PaymentIntent {
  object: "payment_intent";
  id: string;
  client_secret: string | null;
  /** In the currency's smallest unit; null when the page gave only a client secret. */
  amount: number | null;
  currency: string | null;
  /** "requires_confirmation" after collectPaymentMethod; the reader's answer ("succeeded") after processPayment. */
  status: string;
  amount_received: number;
  payment_method: string | null;
  sdk_payment_details: PaymentMethod | null;
}

/** collectPaymentMethod's first argument: a client secret ("pi_…_secret_…"), an id, or the intent. */
export type PaymentIntentArgument =
  | string
  | { id?: string; client_secret?: string; amount?: number | null; currency?: string | null; [field: string]: unknown };

export interface CollectOptions {
  config_override?: {
    skip_tipping?: boolean;
    enable_customer_cancellation?: boolean;
  };
}

export interface DiscoveryConfig {
  /** The location's id (tml_…); by default the connection token's. */
  location?: string;
  simulated?: boolean;
  /** Only readers of this model. */
  device_type?: DeviceType;
  method?: "internet";
  /** Only this reader (iOS 5.1's discoveryFilter); none when no reader of the account at the location matches. */
  discovery_filter?: DiscoveryFilter;
}

/** One reader, by its id or by the serial number printed on it: exactly one of the two. */
export type DiscoveryFilter = { reader_id: string; serial_number?: never } | { serial_number: string; reader_id?: never };

/** easyConnect's config: discovery and connection in one call. */
export interface EasyConnectConfig {
  /** The location's id (tml_…); by default the connection token's. */
  location?: string;
  /** The reader to discover and connect (required). */
  discovery_filter: DiscoveryFilter;
  /** Refuse (READER_BUSY) a reader in the middle of another lane's transaction instead of taking it. */
  fail_if_in_use?: boolean;
}

export interface ConnectOptions {
  /** Refuse (READER_BUSY) a reader in the middle of another lane's transaction instead of taking it. */
  fail_if_in_use?: boolean;
}

/** setReaderDisplay's argument (Terminal JS's cart). */
export interface ReaderDisplay {
  type: "cart";
  cart: {
    line_items: { description: string; amount: number; quantity?: number }[];
    tax?: number;
    total: number;
    currency: string;
  };
}

/** The lane that took a reader. */
export interface TakenBy {
  lane_label: string;
  pos_device_id: string;
}

/** onUnexpectedReaderDisconnect's event (Terminal JS's DisconnectEvent, with why and who). */
export interface DisconnectEvent {
  /** The same error a reader command gets until the next connect. */
  error: ReaderGatewayError;
  reason: DisconnectReason;
  reader: Reader | null;
  reader_id: string | null;
  /** For `reason: "replaced"`: who took the reader. */
  taken_by: TakenBy | null;
  message: string;
}

/** The session's events as onReaderEvent hears them. */
export type ReaderEvent =
  | { type: "disconnected"; at: number; reader_id: string; reason: DisconnectReason; error?: ReaderGatewayError; taken_by?: TakenBy | null; message?: string }
  | { type: "reader_status_changed"; at: number; reader: Reader }
  | { type: "reconnect_started" | "reconnect_succeeded"; at: number; reader_id: string }
  | { type: "reconnect_failed"; at: number; reader_id: string; error: ReaderGatewayError }
  | { type: "update_available" | "update_started"; at: number; reader_id: string; update: ReaderSoftwareUpdate | null }
  | { type: "update_progress"; at: number; reader_id: string; progress: number };

export interface Session {
  session_id: string;
  lease_ms: number;
  resumed: boolean;
}

export interface TerminalOptions {
  /** Resolves to a connection token your backend created (gatewayctl tokens create, or FleetAdmin.CreateConnectionToken). */
  onFetchConnectionToken: () => Promise<string>;
  onUnexpectedReaderDisconnect?: (event: DisconnectEvent) => void;
  onConnectionStatusChange?: (event: { status: ConnectionStatus }) => void;
  onPaymentStatusChange?: (event: { status: PaymentStatus }) => void;
  /** The session came back after a dropped connection (with its reader unless told otherwise). */
  onSessionResumed?: (event: { session: Session | null }) => void;
  onReaderEvent?: (event: ReaderEvent) => void;
  readerBehavior?: { allowCustomerCancel?: boolean };
  /** wss://<gateway>:<port>/readergateway/v1/websocket; by default the gateway this library was loaded from. */
  url?: string;
  /** Who this lane is: shown to a lane it takes a reader from, and in the fleet console. By default an id kept for this tab (sessionStorage). */
  posDeviceId?: string;
  laneLabel?: string;
  /** Each call's deadline (default 15000; collect and updates have none). */
  callTimeoutMs?: number;
  keepaliveTimeMs?: number;
  keepaliveTimeoutMs?: number;
  connectTimeoutMs?: number;
}

/** A lane: Stripe Terminal JS's Terminal on the gateway. Every method resolves; none rejects or throws. */
export declare class Terminal {
  static create(options: TerminalOptions): Terminal;
  /** Every reader of the location, online and offline. */
  discoverReaders(config?: DiscoveryConfig): Promise<{ discoveredReaders: Reader[] } | ErrorResponse>;
  /** Ends a discovery still waiting for its answer. */
  cancelDiscovery(): Promise<Record<string, never> | ErrorResponse>;
  /** Connects a reader from the latest discovery (taking it from another lane unless fail_if_in_use and busy). */
  connectReader(reader: Reader, options?: ConnectOptions): Promise<
    { reader: Reader; replaced_other_session: boolean; generation: number; required_update_failure: ReaderGatewayError | null } | ErrorResponse>;
  /** Discovers one reader by its filter and connects it (READER_NOT_FOUND when none matches). */
  easyConnect(config: EasyConnectConfig): Promise<
    { reader: Reader; replaced_other_session: boolean; generation: number; required_update_failure: ReaderGatewayError | null; discovery_id: string } | ErrorResponse>;
  /** Gives the reader back. */
  disconnectReader(): Promise<Record<string, never> | ErrorResponse>;
  /** Collects a card for the payment intent on the connected reader. */
  collectPaymentMethod(request: PaymentIntentArgument, options?: CollectOptions): Promise<{ paymentIntent: PaymentIntent } | ErrorResponse>;
  /** Stops a collect in progress (which then resolves COMMAND_CANCELED). */
  cancelCollectPaymentMethod(): Promise<Record<string, never> | ErrorResponse>;
  /** Processes (confirms) the payment intent collectPaymentMethod answered with. */
  processPayment(paymentIntent: PaymentIntent | PaymentIntentArgument, options?: Record<string, unknown>): Promise<{ paymentIntent: PaymentIntent } | ErrorResponse>;
  /** Shows a cart on the reader. */
  setReaderDisplay(display: ReaderDisplay): Promise<Record<string, never> | ErrorResponse>;
  /** Clears the reader's display. */
  clearReaderDisplay(): Promise<Record<string, never> | ErrorResponse>;
  /** Reboots the connected reader (lost with reason "reboot_requested"). */
  rebootReader(): Promise<Record<string, never> | ErrorResponse>;
  /** Installs the connected reader's pending update. */
  installAvailableUpdate(): Promise<{ version: string } | ErrorResponse>;
  getConnectionStatus(): ConnectionStatus;
  getPaymentStatus(): PaymentStatus;
  /** The WebSocket connection to the gateway. */
  getGatewayStatus(): ConnectionStatus;
  getConnectedReader(): Reader | null;
  getSession(): Session | null;
  /** Forgets the session; the next call opens a new one with a new connection token. */
  clearCachedCredentials(): Promise<Record<string, never> | ErrorResponse>;
  /** Closes the session (releasing the reader) and the connection. */
  close(): Promise<Record<string, never> | ErrorResponse>;
}

/** Stripe Terminal JS's entry point: `ReaderGateway.create(options)`. */
export declare const ReaderGateway: { create(options: TerminalOptions): Terminal };

/** The error class every `error` is an instance of. */
export declare const RPCError: {
  new (fields?: { code?: string | number; reason?: string | number; message?: string; cause?: unknown; argument?: string; retryAfterMs?: number | bigint; declineCode?: string }): ReaderGatewayError;
  prototype: ReaderGatewayError;
};

/** Stripe's device_type names by the wire's DeviceType number. */
export declare const DEVICE_TYPES: Readonly<Record<number, DeviceType>>;

/** Reasons only the library gives, with their code: ORIGIN_NOT_ALLOWED. */
export declare const ClientErrorReason: Readonly<{ ORIGIN_NOT_ALLOWED: "PERMISSION_DENIED" }>;

/** FleetAdmin from a browser: every method by name with the account's secret key (docs/client.md). */
export declare class AdminClient {
  constructor(connection: GatewayConnection | string, secretKey: string | null, options?: { callTimeoutMs?: number; csrfToken?: string | null });
  /** Resolves with the response, or rejects with an RPCError (the low-level API; messages as the wire's, camelCase, BigInt). */
  call(methodName: string, request?: object, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<any>;
  stream(methodName: string, request: object, onMessage: (message: any) => void, options?: { signal?: AbortSignal }): Promise<void>;
}

/** One WebSocket connection at a time to the gateway (shared by lanes: pass it as `connection`). */
export declare class GatewayConnection {
  constructor(url: string, options?: { retries?: number; backoffMs?: number; keepaliveTimeMs?: number; keepaliveTimeoutMs?: number; connectTimeoutMs?: number });
  getStatus(): ConnectionStatus;
  onStatusChange(listener: (status: ConnectionStatus) => void): () => boolean;
  close(): void;
}

export declare const SUBPROTOCOL: "readergateway.v1";
export declare const WEBSOCKET_PATH: "/readergateway/v1/websocket";

// The low-level layers (the wire's messages: camelCase fields, numeric enums, BigInt for 64-bit
// integers), for tools that speak the protocol directly; pages use Terminal above.
export declare const Channel: any;
export declare const ErrorReason: any;
export declare const StatusCode: any;
export declare const ProtobufError: any;
export declare function oneofCase(type: any, message: object, group: string): string | undefined;
export declare const sdk: any;
export declare const admin: any;
export declare const common: any;
export declare const frames: any;
