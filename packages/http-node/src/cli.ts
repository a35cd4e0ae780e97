#!/usr/bin/env node
// The standalone server's entry point (`npm start`): see standalone.ts.
import { runStandalone } from "./standalone.ts";

await runStandalone();
