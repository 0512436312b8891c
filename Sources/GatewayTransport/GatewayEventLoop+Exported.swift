// The event loop the transport runs on (`EventLoop`, `EventLoopGroup`, `ScheduledTask`) lives one
// layer down, shared with the ops endpoint and the store client; users of the transport keep
// seeing it through this module.
@_exported import GatewayEventLoop
