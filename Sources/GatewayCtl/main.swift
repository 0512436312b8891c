print("gatewayctl: not built yet")
