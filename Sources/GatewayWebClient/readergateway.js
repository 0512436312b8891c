// ReaderGateway in the browser: import this module (served by the gateway) and nothing else.
// Types: readergateway.d.ts beside it. Guide and reference: docs/client.md.
//
//   import { ReaderGateway } from "https://gateway.example:7443/readergateway/v1/js/readergateway.js";
//   const terminal = ReaderGateway.create({ onFetchConnectionToken, onUnexpectedReaderDisconnect });
export { ReaderGateway, Terminal } from "./terminal.js";
export { AdminClient } from "./admin.js";
export { GatewayConnection } from "./connection.js";
export { Channel, SUBPROTOCOL, WEBSOCKET_PATH } from "./channel.js";
export { RPCError, ErrorReason, StatusCode, ClientErrorReason } from "./errors.js";
export { DEVICE_TYPES } from "./objects.js";
export { ProtobufError, oneofCase } from "./protobuf.js";
export * as sdk from "./generated/readergateway/v1/sdk.js";
export * as admin from "./generated/readergateway/v1/admin.js";
export * as common from "./generated/readergateway/v1/common.js";
export * as frames from "./generated/readergateway/v1/frames.js";
