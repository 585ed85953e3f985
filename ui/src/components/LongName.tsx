// A long dataset or job name that may wrap: a line break is allowed after each separator of a path or a
// dotted name (`/ . _ : -`), so a page's title shows the whole name on two lines instead of cutting off
// its end — the part that tells two datasets of one folder apart.
import { Fragment } from "react";

/** The name's pieces, each ending after a separator (the last one may not). */
export function namePieces(name: string): string[] {
  const pieces = (name.match(/[^/._:-]*(?:[/._:-]+|$)/g) ?? []).filter((p) => p !== "");
  return pieces.length ? pieces : [name];
}

export function LongName({ name }: { name: string }) {
  const pieces = namePieces(name);
  return (
    <>
      {pieces.map((p, i) => (
        <Fragment key={i}>
          {p}
          {i < pieces.length - 1 && <wbr />}
        </Fragment>
      ))}
    </>
  );
}
