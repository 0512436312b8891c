// GatewayOperations: the metrics registry and the ops HTTP endpoint (health, readiness, Prometheus).
