// ReaderGateway in the browser: import this module (served by the gateway) and nothing else.
//
//   import { Terminal } from "https://gateway.example:7443/readergateway/v1/js/readergateway.js";
//   const terminal = Terminal.create({ url, onFetchConnectionToken, posDeviceId, laneLabel,
//                                      onUnexpectedReaderDisconnect });
export { Terminal } from "./terminal.js";
export { AdminClient } from "./admin.js";
export { GatewayConnection } from "./connection.js";
export { Channel, SUBPROTOCOL, WEBSOCKET_PATH } from "./channel.js";
export { RPCError, ErrorReason, StatusCode } from "./errors.js";
export { ProtobufError, oneofCase } from "./protobuf.js";
export * as sdk from "./generated/readergateway/v1/sdk.js";
export * as admin from "./generated/readergateway/v1/admin.js";
export * as common from "./generated/readergateway/v1/common.js";
export * as frames from "./generated/readergateway/v1/frames.js";
