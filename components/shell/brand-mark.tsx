/** The product mark: a stylized database cylinder. Decorative. */
export function BrandMark() {
  return (
    <svg aria-hidden="true" viewBox="0 0 24 24" width="26" height="26">
      <rect width="24" height="24" rx="6" fill="var(--color-accent)" />
      <ellipse cx="12" cy="7.5" rx="5.5" ry="2.2" fill="none" stroke="#fff" strokeWidth="1.6" />
      <path d="M6.5 7.5v9c0 1.2 2.5 2.2 5.5 2.2s5.5-1 5.5-2.2v-9M6.5 12c0 1.2 2.5 2.2 5.5 2.2s5.5-1 5.5-2.2" fill="none" stroke="#fff" strokeWidth="1.6" />
    </svg>
  );
}
