// The page-level save bar's contributor registry. A settings card registers
// a contributor (id, dirty, save, discard); the one save bar shows while any
// contributor is dirty and saves each of them. A tiny external store, so the
// bar and the cards need no shared parent component.
/** true: saved; false: failed (the card says why); "cancelled": the administrator declined a confirmation, nothing was sent. */
export type SaveOutcome = boolean | "cancelled";

export type SaveContributor = {
  id: string;
  /** Shown in the bar so the user knows what is unsaved. */
  label: string;
  dirty: boolean;
  canSave: boolean;
  saving: boolean;
  save: () => Promise<SaveOutcome>;
  discard: () => void;
  /**
   * An element id in the card, right after the controls that change it: the
   * bar is placed there in the document (it still shows fixed at the bottom),
   * so Tab reaches Save and Discard a few presses after the changed control.
   */
  slotId?: string;
  /** After Save or Discard: focus goes back to the control that made the change. */
  restoreFocus?: () => void;
};

export type SaveBarStore = {
  subscribe: (listener: () => void) => () => void;
  getSnapshot: () => readonly SaveContributor[];
  set: (contributor: SaveContributor) => void;
  remove: (id: string) => void;
};

const EMPTY: readonly SaveContributor[] = [];

function sameContributor(a: SaveContributor | undefined, b: SaveContributor): boolean {
  return (
    !!a &&
    a.label === b.label &&
    a.dirty === b.dirty &&
    a.canSave === b.canSave &&
    a.saving === b.saving &&
    a.save === b.save &&
    a.discard === b.discard &&
    a.slotId === b.slotId &&
    a.restoreFocus === b.restoreFocus
  );
}

export function createSaveBarStore(): SaveBarStore {
  const contributors = new Map<string, SaveContributor>();
  const listeners = new Set<() => void>();
  let snapshot: readonly SaveContributor[] = EMPTY;
  const emit = () => {
    snapshot = contributors.size === 0 ? EMPTY : [...contributors.values()];
    for (const listener of listeners) listener();
  };
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    getSnapshot: () => snapshot,
    set(contributor) {
      if (sameContributor(contributors.get(contributor.id), contributor)) return;
      contributors.set(contributor.id, contributor);
      emit();
    },
    remove(id) {
      if (contributors.delete(id)) emit();
    },
  };
}

/** The browser tab's one registry (registration happens in effects, never on the server). */
export const saveBarStore = createSaveBarStore();

export const EMPTY_CONTRIBUTORS = EMPTY;
