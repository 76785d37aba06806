// The runtime's checkpoint accessor: one saver and accessor per open
// connection, made on the first thread request (the saver's tables may not
// exist before). A restore puts a new connection in the runtime, and the
// next request opens the accessor again on it.
import type { CheckpointAccessor } from "./accessor";
import type { CheckpointStore } from "./store";

export type OpenedAccessor = { accessor: CheckpointAccessor; store: CheckpointStore };

export type AccessorSlot = {
  /** The accessor opened on `connection`, opened now by `open` when the slot holds none or one of another connection. */
  on(connection: object, open: () => OpenedAccessor): OpenedAccessor;
};

export function createAccessorSlot(): AccessorSlot {
  let current: { connection: object; opened: OpenedAccessor } | null = null;
  return {
    on(connection, open) {
      if (current?.connection !== connection) current = { connection, opened: open() };
      return current.opened;
    },
  };
}
