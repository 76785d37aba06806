import type { ReactNode } from "react";

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
};

/** A table of rows by columns: numeric columns right-aligned, a row-header column as <th>. */
export function DataTable<Row>({ columns, rows, rowKey, classes, caption, testId, rowTestId, labelCells }: DataTableProps<Row>) {
  return (
    <table className={classes.table} data-testid={testId}>
      {caption !== undefined && <caption>{caption}</caption>}
      <TableHead cells={columns} classes={classes} />
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)} data-testid={rowTestId?.(row)}>
            {columns.map((column) =>
              column.rowHeader ? (
                <th key={column.key} scope="row" className={cellClass(column.numeric, classes, column.className)}>
                  {column.cell(row)}
                </th>
              ) : (
                <td key={column.key} data-label={labelCells && typeof column.header === "string" ? column.header : undefined} className={cellClass(column.numeric, classes, column.className)}>
                  {column.cell(row)}
                </td>
              ),
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
