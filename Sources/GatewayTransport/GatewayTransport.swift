// GatewayTransport: epoll event loops, sockets and non-blocking TLS on OpenSSL 3.
