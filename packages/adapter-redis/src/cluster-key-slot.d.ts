// The package ships no types; ioredis routes commands with the same function.
declare module "cluster-key-slot" {
  /** The Cluster hash slot (0 to 16383) of a key, hash tags included. */
  export default function calculateSlot(key: string | Buffer): number;
}
