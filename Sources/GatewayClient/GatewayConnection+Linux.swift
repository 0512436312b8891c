import GatewayClientCore
import GatewayLinuxTransport
import GatewayTransport

extension GatewayConnection {
    /// Connects to `configuration`'s gateway over TLS on this process's event loops
    /// (``LinuxTLSTransport``) when a call first needs a channel.
    ///
    /// - Parameter group: the event loops to run on; nil uses one loop shared by every channel of the process.
    public convenience init(_ configuration: ClientChannelConfiguration, group: EventLoopGroup? = nil) {
        self.init(configuration, transport: LinuxTLSTransport(group: group))
    }

    /// Wraps an open channel; a replacement is connected with the same configuration over TLS
    /// on `group`'s loops (nil: the loop shared by every channel of the process).
    public convenience init(channel: ClientChannel, group: EventLoopGroup? = nil) {
        self.init(channel: channel, transport: LinuxTLSTransport(group: group))
    }
}
