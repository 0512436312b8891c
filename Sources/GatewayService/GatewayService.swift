// GatewayService: the gateway — SDK, reader link and admin surfaces over one TLS port, wired to the store.
