// wire-bench: encode/decode throughput of a typical command message and frame
// decoding. Prints one JSON object per measurement; Tests/GatewayWireTests/Bench/
// wire_bench.py runs it beside Python's protobuf (upb) and prints the table.
//
//   wire-bench message-hex     the benchmark message, hex (Python decodes it to build its copy)
//   wire-bench run [SECONDS]   the measurements, each for about SECONDS (default 1)
#if canImport(Glibc)
import Glibc
#endif
import GatewayWire

typealias V1 = ReaderGatewayV1

/// A ~200-byte command a lane's session relays to its reader: show a cart.
func typicalCommand() -> V1.ReaderCommand {
    var command = V1.ReaderCommand()
    command.commandID = 1_234_567
    command.timeoutMs = 30_000
    command.sessionID = "sess_1NxQ8c2eZvKYlo2C0a1b2c3d4e5f6g7h"
    var cart = V1.Cart()
    cart.currency = "usd"
    for (description, quantity, amount) in [("Cappuccino, large, oat milk", 2, 1150), ("Blueberry muffin", 1, 425), ("Oat milk upgrade", 2, 140), ("Gift card reload", 1, 2500), ("Loyalty discount", 1, -150)] {
        var item = V1.CartLineItem()
        item.description = description
        item.quantity = Int64(quantity)
        item.amount = Int64(amount)
        cart.lineItems.append(item)
    }
    cart.tax = 118
    cart.total = 4183
    command.command = .setDisplay(cart)
    return command
}

struct Measurement {
    var name: String
    var operations: Int
    var bytes: Int
    var seconds: Double

    var json: String {
        "{\"name\":\"\(name)\",\"operations\":\(operations),\"bytes\":\(bytes),\"seconds\":\(seconds)}"
    }
}

/// CPU time of this thread, in seconds: unlike wall time it does not count
/// the time other processes hold the cores, so a busy machine does not skew it.
func threadCPUSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// Runs `body` (which does `batch` operations of `bytesPerOperation`) until
/// `seconds` of thread CPU time pass.
func measure(_ name: String, seconds: Double, batch: Int, bytesPerOperation: Int, _ body: () -> Int) -> Measurement {
    var sink = 0
    // Warm up.
    for _ in 0..<3 { sink &+= body() }
    var operations = 0
    let start = threadCPUSeconds()
    var elapsed = 0.0
    repeat {
        sink &+= body()
        operations += batch
        elapsed = threadCPUSeconds() - start
    } while elapsed < seconds
    if sink == 42 { print("") }  // keeps the work observable
    return Measurement(name: name, operations: operations, bytes: operations * bytesPerOperation, seconds: elapsed)
}

func run(seconds: Double, only: String?) {
    func emit(_ measurement: @autoclosure () -> Measurement, _ name: String) {
        if only == nil || only == name { print(measurement().json) }
    }
    let command = typicalCommand()
    let bytes = command.serializedBytes()
    let batch = 1000

    emit(measure("encode", seconds: seconds, batch: batch, bytesPerOperation: bytes.count) {
        var total = 0
        for _ in 0..<batch { total &+= command.serializedBytes().count }
        return total
    }, "encode")

    emit(measure("decode", seconds: seconds, batch: batch, bytesPerOperation: bytes.count) {
        var total = 0
        for _ in 0..<batch {
            let decoded = try! V1.ReaderCommand(serializedBytes: bytes)
            total &+= Int(decoded.commandID)
        }
        return total
    }, "decode")

    // A stream of MESSAGE frames carrying the command, fed in 64 KiB reads.
    var stream: [UInt8] = []
    let framesPerStream = 4096
    for index in 0..<framesPerStream {
        FrameEncoder.append(type: .message, streamID: UInt32(index % 64) * 2 + 1, message: command, to: &stream)
    }
    let frameSize = stream.count / framesPerStream
    let chunk = 65_536

    emit(measure("frame-decode", seconds: seconds, batch: framesPerStream, bytesPerOperation: frameSize) {
        var decoder = FrameDecoder()
        var count = 0
        stream.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let end = min(raw.count, offset + chunk)
                decoder.append(UnsafeRawBufferPointer(rebasing: raw[offset..<end]))
                offset = end
                while let frame = try! decoder.nextFrame() {
                    if case .message(_, let payload) = frame { count &+= payload.count }
                }
            }
        }
        return count
    }, "frame-decode")

    emit(measure("frame-and-message-decode", seconds: seconds, batch: framesPerStream, bytesPerOperation: frameSize) {
        var decoder = FrameDecoder()
        var count = 0
        stream.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let end = min(raw.count, offset + chunk)
                decoder.append(UnsafeRawBufferPointer(rebasing: raw[offset..<end]))
                offset = end
                while let frame = try! decoder.nextFrame() {
                    if case .message(_, let payload) = frame {
                        count &+= Int(try! V1.ReaderCommand(serializedBytes: payload).commandID)
                    }
                }
            }
        }
        return count
    }, "frame-and-message-decode")

    emit(measure("frame-encode", seconds: seconds, batch: framesPerStream, bytesPerOperation: frameSize) {
        var out: [UInt8] = []
        out.reserveCapacity(stream.count)
        for index in 0..<framesPerStream {
            FrameEncoder.append(type: .message, streamID: UInt32(index % 64) * 2 + 1, message: command, to: &out)
        }
        return out.count
    }, "frame-encode")
}

@main
struct WireBench {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch arguments.first {
        case "message-hex":
            let digits = Array("0123456789abcdef")
            print(String(typicalCommand().serializedBytes().flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }))
        case "run":
            run(seconds: arguments.count > 1 ? Double(arguments[1]) ?? 1 : 1, only: arguments.count > 2 ? arguments[2] : nil)
        default:
            print("usage: wire-bench message-hex | wire-bench run [SECONDS]")
        }
    }
}
