// GatewayTestSupport: test helpers: a throwaway PostgreSQL server per test run, a database per test.
