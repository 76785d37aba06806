"use client";
import { useEffect } from "react";
import { saveBarStore, type SaveBarStore, type SaveContributor } from "./save-bar-store";

/** Registers a card's unsaved state with the page-level save bar for as long as the card is mounted. */
export function useSaveContributor(contributor: SaveContributor, store: SaveBarStore = saveBarStore): void {
  const { id } = contributor;
  useEffect(() => {
    store.set(contributor);
  });
  useEffect(() => () => store.remove(id), [id, store]);
}
