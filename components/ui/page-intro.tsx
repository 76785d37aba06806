import type { ReactNode } from "react";
import ui from "./surface.module.css";

/** A page's heading and the sentence under it. */
export function PageIntro({ title, description, descriptionClassName }: { title: ReactNode; description: ReactNode; descriptionClassName?: string }) {
  return (
    <div className={ui.intro}>
      <h1>{title}</h1>
      <p className={descriptionClassName}>{description}</p>
    </div>
  );
}
