// What the server reads from its environment: PORT, HOST, CATALOG_CONFIG and ACCESS_LOG, each
// refused with a message naming it when it cannot be used.
import { ConfigError } from "./config.ts";

/** The server's settings from its environment. */
export interface Environment {
  /** `PORT`: 3000 by default; 0 picks a free one. */
  readonly port: number;
  /** `HOST`: 127.0.0.1 by default. */
  readonly host: string;
  /** `CATALOG_CONFIG`: the configuration file; none is demo mode. */
  readonly configFile: string | undefined;
  /** `ACCESS_LOG`: on or off, overriding the file's `accessLog`; undefined when not set. */
  readonly accessLog: boolean | undefined;
}

function readPort(value: string | undefined): number {
  if (value === undefined || value === "") return 3000;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535)
    throw new ConfigError("the environment", [`PORT: Must be a port number (0-65535), got "${value}"`]);
  return port;
}

const SWITCH: Readonly<Record<string, boolean>> = {
  on: true,
  true: true,
  "1": true,
  off: false,
  false: false,
  "0": false,
};

// ACCESS_LOG overrides the file's "accessLog", so that one run can turn it off.
function readSwitch(value: string | undefined): boolean | undefined {
  if (value === undefined || value === "") return undefined;
  const on = SWITCH[value.toLowerCase()];
  if (on === undefined) {
    throw new ConfigError("the environment", [`ACCESS_LOG: Must be on or off (or true/false, 1/0), got "${value}"`]);
  }
  return on;
}

/** Reads the server's environment; throws `ConfigError` naming a variable it cannot use. */
export function readEnvironment(env: NodeJS.ProcessEnv = process.env): Environment {
  return {
    port: readPort(env.PORT),
    host: env.HOST || "127.0.0.1",
    configFile: env.CATALOG_CONFIG || undefined,
    accessLog: readSwitch(env.ACCESS_LOG),
  };
}
