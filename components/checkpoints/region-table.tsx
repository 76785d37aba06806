import { DataTable, type DataTableProps } from "@/components/ui/data-table";
import styles from "./checkpoint-storage-card.module.css";

/** A table in a scrollable region that takes keyboard focus; its label names the region and captions the table. */
export function RegionTable<Row>({ label, ...table }: { label: string } & Omit<DataTableProps<Row>, "classes" | "caption">) {
  return (
    <div className={styles.tableWrap} tabIndex={0} role="region" aria-label={label}>
      <DataTable classes={styles} caption={label} {...table} />
    </div>
  );
}
