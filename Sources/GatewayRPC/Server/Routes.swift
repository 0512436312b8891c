import GatewayChannel
import GatewayWire

/// How a service serves one unary method (a requirement of a generated `…Routes` protocol).
public struct UnaryRoute<Request: ProtobufMessage, Response: ProtobufMessage>: Sendable {
    /// What the router runs for the method's path.
    public let handler: MethodHandler

    /// Served in a task, off the event loops: the answer is the response returned, or the
    /// error thrown (its ``CallFailure/status``). A request that does not decode ends the call
    /// with INVALID_REQUEST.
    public static func task<Failure: CallFailure>(_ body: @escaping @Sendable (Request, CallContext) async throws(Failure) -> Response) -> Self {
        UnaryRoute(handler: .unary { bytes, context throws(RPCError) in
            let request: Request = try decode(bytes)
            let response: Response
            do throws(Failure) {
                response = try await body(request, context)
            } catch {
                throw RPCError(status: error.status)
            }
            return response.serializedBytes()
        })
    }

    /// Served in a task, like ``task(_:)``, after `arriving` ran on the connection's event loop
    /// when the request arrived: calls the connection carries later (sent after this one) find
    /// what `arriving` did, whatever the task's progress. `arriving` must not block; what it
    /// returns is handed to `body`.
    public static func task<Arrival: Sendable, Failure: CallFailure>(
        arriving: @escaping @Sendable (Request, CallContext) -> Arrival,
        _ body: @escaping @Sendable (Request, Arrival, CallContext) async throws(Failure) -> Response
    ) -> Self {
        UnaryRoute(handler: .immediate { bytes, call, context in
            let request: Request
            do throws(RPCError) { request = try decode(bytes) } catch {
                call.end(error.status)
                return
            }
            let arrival = arriving(request, context)
            Task {
                do throws(Failure) {
                    call.respond(try await body(request, arrival, context).serializedBytes())
                } catch {
                    call.end(error.status)
                }
            }
        })
    }

    /// Served on the connection's event loop when the request arrives (no task): the body
    /// must not block, and answers through the call from any thread. A request that does
    /// not decode ends the call with INVALID_REQUEST.
    public static func onLoop(_ body: @escaping @Sendable (Request, ServerCall, CallContext) -> Void) -> Self {
        UnaryRoute(handler: .immediate { bytes, call, context in
            let request: Request
            do throws(RPCError) { request = try decode(bytes) } catch {
                call.end(error.status)
                return
            }
            body(request, call, context)
        })
    }
}

/// How a service serves one server-streaming method: in a task, sending messages on the
/// call and ending it. A request that does not decode ends the call with INVALID_REQUEST.
public struct ServerStreamingRoute<Request: ProtobufMessage, Response: ProtobufMessage>: Sendable {
    public let handler: MethodHandler

    public static func task(_ body: @escaping @Sendable (Request, ServerCall, CallContext) async -> Void) -> Self {
        ServerStreamingRoute(handler: .serverStreaming { bytes, call, context in
            let request: Request
            do throws(RPCError) { request = try decode(bytes) } catch {
                call.end(error.status)
                return
            }
            await body(request, call, context)
        })
    }

    /// Started on the connection's event loop when the request arrives (no task): the body
    /// must not block (it may start a task), and sends and ends through the call from any
    /// thread. Calls the connection carries later find what the body did on the loop.
    public static func onLoop(_ body: @escaping @Sendable (Request, ServerCall, CallContext) -> Void) -> Self {
        ServerStreamingRoute(handler: .immediate { bytes, call, context in
            let request: Request
            do throws(RPCError) { request = try decode(bytes) } catch {
                call.end(error.status)
                return
            }
            body(request, call, context)
        })
    }
}

/// How a service serves one bidirectional method: in a task, reading the requests as they
/// arrive (each still encoded: the service decodes them, as one of them may end the call).
public struct BidirectionalRoute<Request: ProtobufMessage, Response: ProtobufMessage>: Sendable {
    public let handler: MethodHandler

    public static func task(_ body: @escaping @Sendable (AsyncStream<[UInt8]>, ServerCall, CallContext) async -> Void) -> Self {
        BidirectionalRoute(handler: .bidirectional(body))
    }
}

/// The request in `bytes`, or INVALID_REQUEST naming the message that did not decode.
private func decode<Request: ProtobufMessage>(_ bytes: [UInt8]) throws(RPCError) -> Request {
    do {
        return try Request(serializedBytes: bytes)
    } catch {
        throw RPCError(.invalidRequest, "the \(Request.protoMessageName) message does not decode: \(error)")
    }
}
