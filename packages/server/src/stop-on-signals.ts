// The graceful stop: SIGTERM or SIGINT lets the requests in flight finish, then stops; a second
// signal exits at once.

/**
 * On the first SIGTERM or SIGINT, says so on stdout and runs `stop` (close the servers, the store,
 * flush the log), then prints "Stopped" and lets the process end with code 0 (1 if `stop`
 * failed). A second signal exits at once with 1.
 */
export function stopOnSignals(stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      console.error(`${signal} again: exiting at once`);
      process.exit(1);
    }
    stopping = true;
    process.stdout.write(`${signal}: finishing in-flight requests, then stopping\n`);
    stop()
      .then(() => {
        process.stdout.write("Stopped\n");
      })
      .catch((error: unknown) => {
        console.error("Error while stopping:", error);
        process.exitCode = 1;
      });
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
