// A lane page's script in TypeScript, using every method of the library, type-checked
// against readergateway.d.ts by `make js-types` (tsc --noEmit). It is compiled, never run:
// the browser suite runs the same calls (pages/quickstart.html, pages/lane.html).
import {
  ReaderGateway, RPCError, type DisconnectEvent, type ErrorResponse, type PaymentIntent, type Reader, type ReaderEvent,
} from "../../../Sources/GatewayWebClient/readergateway.js";

const terminal = ReaderGateway.create({
  onFetchConnectionToken: async () => (await fetch("/connection_token", { method: "POST" })).text(),
  onUnexpectedReaderDisconnect: (event: DisconnectEvent) => {
    const who: string = event.taken_by ? `${event.taken_by.lane_label} (${event.taken_by.pos_device_id})` : event.reason;
    console.log(who, event.error.code, event.error.reason, event.error.message, JSON.stringify(event.error));
  },
  onConnectionStatusChange: ({ status }) => console.log(status === "connected"),
  onPaymentStatusChange: ({ status }) => console.log(status === "waiting_for_input"),
  onSessionResumed: ({ session }) => console.log(session?.resumed),
  onReaderEvent: (event: ReaderEvent) => {
    if (event.type === "reader_status_changed") console.log(event.reader.status, event.reader.battery_level);
    if (event.type === "update_progress") console.log(event.progress.toFixed(2));
  },
  readerBehavior: { allowCustomerCancel: true },
  posDeviceId: "pos-3",
  laneLabel: "Lane 3",
});

function failed(result: object): result is ErrorResponse {
  return "error" in result;
}

export async function checkout(clientSecret: string): Promise<string> {
  const discovered = await terminal.discoverReaders({ location: "tml_1", simulated: false, device_type: "bbpos_wisepos_e", method: "internet" });
  if (failed(discovered)) return discovered.error.reason;
  const reader: Reader | undefined = discovered.discoveredReaders.find((found) => found.status === "online");
  if (!reader) return "no reader online";
  let connected = await terminal.connectReader(reader, { fail_if_in_use: true });
  if (failed(connected) && connected.error.reason === "READER_BUSY") connected = await terminal.connectReader(reader);
  if (failed(connected)) return connected.error.message;
  const serial: string = connected.reader.serial_number;
  const generation: number = connected.generation;
  console.log(serial, generation, connected.replaced_other_session, connected.required_update_failure?.reason);
  const one = await terminal.discoverReaders({ location: "tml_1", discovery_filter: { serial_number: serial } });
  if (!failed(one)) console.log(one.discoveredReaders.length);
  const easy = await terminal.easyConnect({ location: "tml_1", discovery_filter: { reader_id: connected.reader.id }, fail_if_in_use: true });
  if (!failed(easy)) console.log(easy.reader.serial_number, easy.generation, easy.replaced_other_session, easy.discovery_id, easy.required_update_failure?.code);

  await terminal.setReaderDisplay({ type: "cart", cart: { line_items: [{ description: "Latte", amount: 450, quantity: 1 }], tax: 45, total: 495, currency: "usd" } });
  const collected = await terminal.collectPaymentMethod(clientSecret, { config_override: { skip_tipping: true } });
  if (failed(collected)) return collected.error.reason;
  const intent: PaymentIntent = collected.paymentIntent;
  console.log(intent.status, intent.sdk_payment_details?.card_present.last4);
  const processed = await terminal.processPayment(intent);
  if (failed(processed)) return processed.error.reason;
  const received: number = processed.paymentIntent.amount_received;

  const byObject = await terminal.collectPaymentMethod({ id: "pi_2", amount: 1200, currency: "eur" });
  if (!failed(byObject)) await terminal.cancelCollectPaymentMethod();
  await terminal.clearReaderDisplay();
  await terminal.cancelDiscovery();
  const update = await terminal.installAvailableUpdate();
  if (!failed(update)) console.log(update.version);
  await terminal.rebootReader();
  await terminal.disconnectReader();
  console.log(terminal.getConnectionStatus(), terminal.getPaymentStatus(), terminal.getGatewayStatus());
  console.log(terminal.getConnectedReader()?.device_type, terminal.getSession()?.lease_ms);
  await terminal.clearCachedCredentials();
  const closed = await terminal.close();
  if (failed(closed) && closed.error instanceof Error) console.log(closed.error.toJSON().message);
  console.log(new RPCError({ code: "UNAVAILABLE", reason: "READER_OFFLINE", message: "x" }).isRetryable);
  return `received ${received}`;
}
