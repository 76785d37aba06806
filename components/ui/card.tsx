import type { ReactNode } from "react";
import shared from "./card.module.css";

export type CardClasses = { card?: string; header?: string; title?: string };

type Props = {
  /** id of the title heading, which names the card for assistive technology. */
  titleId: string;
  /**
   * The title's heading level: 3 under a page section's <h2> (the Database
   * page), 2 for a card that is the page's only content under its <h1>
   * (Accounts), so levels never skip one.
   */
  level?: 2 | 3;
  title: ReactNode;
  testId: string;
  /** A room's classes, each composing the shared card style (card.module.css); that style itself when absent. */
  classes?: CardClasses;
  /** Set while the card's data is being fetched. */
  busy?: boolean;
  /** Beside the title in the header (actions, a state badge, a description). */
  header?: ReactNode;
  headerElement?: "div" | "header";
  children?: ReactNode;
};

/** A card of the console (Database page, task page, Accounts): an <article> named by its title heading. */
export function Card({ titleId, title, testId, classes = shared, busy, header, headerElement: Header = "div", level = 3, children }: Props) {
  const Heading = level === 2 ? "h2" : "h3";
  return (
    <article className={classes.card} aria-labelledby={titleId} aria-busy={busy} data-testid={testId}>
      <Header className={classes.header}>
        <Heading id={titleId} className={classes.title}>
          {title}
        </Heading>
        {header}
      </Header>
      {children}
    </article>
  );
}
