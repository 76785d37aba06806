import type { ReactNode } from "react";

export type CardClasses = { card?: string; header?: string; title?: string };

type Props = {
  /** id of the <h3>, which names the card for assistive technology. */
  titleId: string;
  title: ReactNode;
  testId: string;
  classes: CardClasses;
  /** Set while the card's data is being fetched. */
  busy?: boolean;
  /** Beside the title in the header (actions, a state badge, a description). */
  header?: ReactNode;
  headerElement?: "div" | "header";
  children?: ReactNode;
};

/** A card of the Database page: an <article> named by its <h3> title. */
export function Card({ titleId, title, testId, classes, busy, header, headerElement: Header = "div", children }: Props) {
  return (
    <article className={classes.card} aria-labelledby={titleId} aria-busy={busy} data-testid={testId}>
      <Header className={classes.header}>
        <h3 id={titleId} className={classes.title}>
          {title}
        </h3>
        {header}
      </Header>
      {children}
    </article>
  );
}
