// A minimal WebSocket client (the browser API's shape) for node versions without one
// (node before 22 keeps its own behind --experimental-websocket; Debian 12's node 18 has
// none). Loaded with --import before the tests; it only fills in a missing globalThis.WebSocket.
// Enough for the tests: ws:// URLs, binary and text messages, close codes; no extensions.
import { randomBytes, createHash } from "node:crypto";
import { request } from "node:http";

class NodeWebSocket {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSING = 2;
  static CLOSED = 3;

  constructor(url, protocols = []) {
    this.url = url;
    this.readyState = NodeWebSocket.CONNECTING;
    this.protocol = "";
    this.binaryType = "arraybuffer";
    this.buffer = Buffer.alloc(0);
    this.fragments = [];
    const target = new URL(url);
    const key = randomBytes(16).toString("base64");
    const req = request({
      host: target.hostname, port: target.port, path: target.pathname + target.search,
      headers: {
        Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": key,
        ...(protocols.length ? { "Sec-WebSocket-Protocol": [].concat(protocols).join(", ") } : {}),
      },
    });
    req.on("upgrade", (response, socket, head) => {
      const accept = createHash("sha1").update(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64");
      if (response.headers["sec-websocket-accept"] !== accept) {
        socket.destroy();
        return this.failed();
      }
      this.socket = socket;
      this.protocol = response.headers["sec-websocket-protocol"] ?? "";
      this.readyState = NodeWebSocket.OPEN;
      socket.on("data", (data) => this.receive(data));
      socket.on("close", () => this.closed(1006, ""));
      socket.on("error", () => {});
      this.onopen?.({});
      if (head.length) this.receive(head);
    });
    req.on("response", () => this.failed());
    req.on("error", () => this.failed());
    req.end();
  }

  failed() {
    if (this.readyState === NodeWebSocket.CLOSED) return;
    this.onerror?.({});
    this.closed(1006, "");
  }

  send(data) {
    if (this.readyState !== NodeWebSocket.OPEN) return;
    const binary = typeof data !== "string";
    this.writeFrame(binary ? 0x2 : 0x1, binary ? Buffer.from(data.buffer ?? data, data.byteOffset ?? 0, data.byteLength) : Buffer.from(data));
  }

  close(code = 1000, reason = "") {
    if (this.readyState !== NodeWebSocket.OPEN) {
      if (this.readyState === NodeWebSocket.CONNECTING) this.failed();
      return;
    }
    this.readyState = NodeWebSocket.CLOSING;
    const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
    payload.writeUInt16BE(code, 0);
    payload.write(reason, 2);
    this.writeFrame(0x8, payload);
  }

  writeFrame(opcode, payload) {
    const mask = randomBytes(4);
    const length = payload.length;
    const header = length < 126 ? Buffer.from([0x80 | opcode, 0x80 | length])
      : length < 65536 ? Buffer.from([0x80 | opcode, 0x80 | 126, length >> 8, length & 0xff])
      : Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(length)); return b; })()]);
    const masked = Buffer.alloc(length);
    for (let index = 0; index < length; index++) masked[index] = payload[index] ^ mask[index & 3];
    this.socket.write(Buffer.concat([header, mask, masked]));
  }

  receive(data) {
    this.buffer = Buffer.concat([this.buffer, data]);
    while (this.buffer.length >= 2) {
      const fin = (this.buffer[0] & 0x80) !== 0;
      const opcode = this.buffer[0] & 0x0f;
      let length = this.buffer[1] & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.buffer.length < 4) return;
        length = this.buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (this.buffer.length < 10) return;
        length = Number(this.buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (this.buffer.length < offset + length) return;
      const payload = this.buffer.subarray(offset, offset + length);
      this.buffer = this.buffer.subarray(offset + length);
      if (opcode === 0x8) {
        const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
        if (this.readyState === NodeWebSocket.OPEN) this.close(code === 1005 ? 1000 : code);
        this.socket.end();
        this.closed(code, payload.subarray(2).toString());
        return;
      }
      if (opcode === 0x9) {
        this.writeFrame(0xa, payload);
        continue;
      }
      if (opcode === 0xa) continue;
      if (opcode !== 0) this.firstOpcode = opcode;
      this.fragments.push(Buffer.from(payload));
      if (!fin) continue;
      const message = Buffer.concat(this.fragments);
      this.fragments = [];
      const dataOut = this.firstOpcode === 0x1 ? message.toString() : message.buffer.slice(message.byteOffset, message.byteOffset + message.length);
      this.onmessage?.({ data: dataOut });
    }
  }

  closed(code, reason) {
    if (this.readyState === NodeWebSocket.CLOSED) return;
    this.readyState = NodeWebSocket.CLOSED;
    this.onclose?.({ code, reason, wasClean: code !== 1006 });
  }
}

if (globalThis.WebSocket === undefined) globalThis.WebSocket = NodeWebSocket;
