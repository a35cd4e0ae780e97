// The RESP fault proxy is shared with the server's tests: see the test support package.
export * from "@catalog-kit/test-support/fault-proxy";
