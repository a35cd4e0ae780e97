// The shared test support of the workspace (tests and bench): private Redis servers and clusters,
// private PostgreSQL servers, and PgBouncers in front of them.
// Private, never built: it is imported as TypeScript source by vitest and tsx.

export {
  havePgbouncer,
  PGBOUNCER_INSTALL_HINT,
  type Pgbouncer,
  type PgbouncerOptions,
  startPgbouncer,
} from "./pgbouncer.ts";
export {
  havePostgres,
  POSTGRES_INSTALL_HINT,
  type PostgresServer,
  type PostgresServerOptions,
  startPostgres,
} from "./postgres-server.ts";
export {
  cli as redisCli,
  freePort,
  haveRedisServer,
  INSTALL_HINT,
  type RedisCluster,
  type RedisClusterOptions,
  type RedisServer,
  type RedisServerOptions,
  startRedisCluster,
  startRedisServer,
} from "./redis-server.ts";
export { publishedPackages, ROOT } from "./workspace.ts";
