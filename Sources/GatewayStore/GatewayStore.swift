// GatewayStore: PostgreSQL through libpq: connections, the embedded server, migrations, queries.
