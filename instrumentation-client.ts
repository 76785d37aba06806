// Runs in the browser before the app's modules. The pages' Content-Security-
// Policy forbids eval, and zod's compiled parsers probe `Function("")` when
// a schema is built (a reported violation) before falling back to the
// interpreter: configure the interpreter from the start.
import { z } from "zod";

z.config({ jitless: true });
