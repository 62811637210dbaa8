/** A stored colour (`#rgb`, `#rrggbb` or `#rrggbbaa`) as the `#rrggbb` an <input type="color"> takes. */
export function colourInput(colour: string | null | undefined, fallback: string): string {
  const hex = (colour ?? fallback).replace('#', '');
  if (hex.length === 3) return `#${[...hex].map((c) => c + c).join('')}`;
  return `#${hex.slice(0, 6)}`;
}
