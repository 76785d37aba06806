// SqliteSaver shares the writer connection with the stores' asynchronous
// transactions: a saver call issued while a transaction of the database is
// open across an await waits for its end instead of joining it (an analysis
// rolls back, and a joined write would vanish with it) or reading its
// uncommitted rows.
import { afterEach, describe, expect, it } from "vitest";
import { FULL, openHarness, buildLinear, type Harness } from "./cleanup/contract-support";

let h: Harness | null = null;
afterEach(() => {
  h?.close();
  h = null;
});

class Rollback extends Error {}

describe("the SQLite saver and open transactions", () => {
  it("a saver read and write during a transaction held across an await wait for it: the read sees committed rows, the write survives the rollback", async () => {
    h = openHarness(FULL);
    const shape = await buildLinear(h, 2);
    const harness = h;
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    // An analysis-shaped transaction: deletes the head, waits, rolls back.
    const analysis = harness.store.transaction(async () => {
      await harness.store.deleteCheckpoints(shape.threadId, [shape.headId]);
      entered();
      await held;
      throw new Rollback();
    });
    await inside;
    const order: string[] = [];
    const read = harness.accessor.rawTuple(shape.threadId).then((tuple) => {
      order.push("read");
      return tuple;
    });
    const write = harness.accessor.replace(shape.threadId, {}).then((id) => {
      order.push("write");
      return id;
    });
    // Neither may finish while the transaction is open, however many turns of the event loop pass.
    for (let i = 0; i < 50; i += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]);
    release();
    await expect(analysis).rejects.toBeInstanceOf(Rollback);
    const tuple = await read;
    const written = await write;
    // The read saw the committed head (the deletion was never committed), and the write landed after the rollback.
    expect(String(tuple!.config.configurable?.checkpoint_id)).toBe(shape.headId);
    expect(await harness.store.checkpointExists(shape.threadId, written)).toBe(true);
    expect(await harness.store.checkpointExists(shape.threadId, shape.headId)).toBe(true);
  });
});
