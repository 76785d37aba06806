import type { ReactNode } from "react";
import stackStyles from "./stack-table.module.css";

export type HeaderCell = {
  key: string;
  header: ReactNode;
  /** Right-aligned tabular figures. */
  numeric?: boolean;
};

export type Column<Row> = HeaderCell & {
  cell: (row: Row) => ReactNode;
  /** The cell names its row (<th scope="row">). */
  rowHeader?: boolean;
  className?: string;
};

export type TableClasses = { table?: string; num?: string };

function cellClass(numeric: boolean | undefined, classes: TableClasses, extra?: string): string | undefined {
  return [numeric ? classes.num : undefined, extra].filter(Boolean).join(" ") || undefined;
}

/** The column headers of a table; rows may come from the caller (e.g. rows with their own panels). */
export function TableHead({ cells, classes }: { cells: HeaderCell[]; classes: TableClasses }) {
  return (
    <thead>
      <tr>
        {cells.map((cell) => (
          <th key={cell.key} scope="col" className={cellClass(cell.numeric, classes)}>
            {cell.header}
          </th>
        ))}
      </tr>
    </thead>
  );
}

export type DataTableProps<Row> = {
  columns: Column<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row) => string;
  classes: TableClasses;
  caption?: ReactNode;
  testId?: string;
  rowTestId?: (row: Row) => string;
  /** Each cell carries its column's header as data-label, shown when a stacking table turns rows into cards on a phone. */
  labelCells?: boolean;
  /** When its box is narrower than its columns need (always on a phone) the rows become stacked, labelled cards (implies labelCells). */
  stack?: boolean;
};

/** A table of rows by columns: numeric columns right-aligned, a row-header column as <th>. */
export function DataTable<Row>({ columns, rows, rowKey, classes, caption, testId, rowTestId, labelCells, stack }: DataTableProps<Row>) {
  const label = (column: Column<Row>) => ((labelCells || stack) && typeof column.header === "string" ? column.header : undefined);
  const table = (
    <table className={[classes.table, stack ? stackStyles.stack : undefined].filter(Boolean).join(" ") || undefined} data-testid={testId} data-stack={stack ? "true" : undefined}>
      {caption !== undefined && <caption>{caption}</caption>}
      <TableHead cells={columns} classes={classes} />
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)} data-testid={rowTestId?.(row)}>
            {columns.map((column) =>
              column.rowHeader ? (
                <th key={column.key} scope="row" data-label={label(column)} className={cellClass(column.numeric, classes, column.className)}>
                  {column.cell(row)}
                </th>
              ) : (
                <td key={column.key} data-label={label(column)} className={cellClass(column.numeric, classes, column.className)}>
                  {column.cell(row)}
                </td>
              ),
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
  // A stacking table decides by its own box: the wrapper is the container its rules query.
  return stack ? <div className={stackStyles.container}>{table}</div> : table;
}
