// Syntax highlighting that renders React elements from Prism's token tree: no innerHTML, so
// text from events can never become markup.
import Prism from "prismjs";
import "prismjs/components/prism-sql";
import "prismjs/components/prism-json";
import "prismjs/components/prism-python";
import "prismjs/components/prism-java";
import "prismjs/components/prism-scala";
import { useEffect, useRef, type ReactNode } from "react";

/** A token's type and its aliases (Prism's `triple-quoted-string` is also a `string`). */
function kinds(t: Prism.Token): string[] {
  return [t.type, ...(t.alias ? (Array.isArray(t.alias) ? t.alias : [t.alias]) : [])];
}

function render(tokens: Array<string | Prism.Token>, key = "t"): ReactNode[] {
  return tokens.map((t, i) => {
    if (typeof t === "string") return t;
    const content = Array.isArray(t.content)
      ? render(t.content as Array<string | Prism.Token>, `${key}.${i}`)
      : typeof t.content === "string"
        ? t.content
        : render([t.content as Prism.Token], `${key}.${i}`);
    return (
      <span key={`${key}.${i}`} className={kinds(t).map((k) => `tok tok-${k}`).join(" ")}>
        {content}
      </span>
    );
  });
}

export function highlight(code: string, language: string): ReactNode[] {
  const grammar = Prism.languages[language];
  if (!grammar) return [code];
  return render(Prism.tokenize(code, grammar));
}

/** A run of text and the token types around it (outermost first). */
type Segment = { text: string; types: string[] };

function segments(tokens: Array<string | Prism.Token>, types: string[] = [], out: Segment[] = []): Segment[] {
  for (const t of tokens) {
    if (typeof t === "string") out.push({ text: t, types });
    else if (typeof t.content === "string") out.push({ text: t.content, types: [...types, ...kinds(t)] });
    else segments(Array.isArray(t.content) ? (t.content as Array<string | Prism.Token>) : [t.content as Prism.Token], [...types, ...kinds(t)], out);
  }
  return out;
}

/**
 * The code highlighted line by line: Prism tokenizes the whole text (a string or docstring over several lines
 * stays one token) and each line keeps the token classes of its part. For line numbers and a marked line.
 */
export function highlightLines(code: string, language: string): ReactNode[][] {
  const grammar = Prism.languages[language];
  const segs = grammar ? segments(Prism.tokenize(code, grammar)) : [{ text: code, types: [] }];
  const lines: ReactNode[][] = [[]];
  segs.forEach((seg, i) => {
    seg.text.split("\n").forEach((part, j) => {
      if (j > 0) lines.push([]);
      if (!part) return;
      const line = lines[lines.length - 1];
      line.push(
        seg.types.length ? (
          <span key={`${i}.${j}`} className={seg.types.map((t) => `tok tok-${t}`).join(" ")}>
            {part}
          </span>
        ) : (
          part
        ),
      );
    });
  });
  if (lines.length > 1 && lines[lines.length - 1].length === 0 && code.endsWith("\n")) lines.pop();
  return lines;
}

export function CodeBlock({
  code,
  language,
  testId,
  lineNumbers = false,
  mark = null,
}: {
  code: string;
  language: string;
  testId?: string;
  /** number the lines (source code) */
  lineNumbers?: boolean;
  /** 1-based line to mark and scroll to (the line that ran the action) */
  mark?: number | null;
}) {
  const pre = useRef<HTMLPreElement>(null);
  useEffect(() => {
    // the marked line in view inside the block (not the page scrolled)
    const el = pre.current;
    const line = el?.querySelector<HTMLElement>(".code-line.is-marked");
    if (el && line) el.scrollTop = Math.max(0, line.offsetTop - el.clientHeight / 3);
  }, [mark, code]);
  if (!lineNumbers && mark === null) {
    return (
      <pre className={`code lang-${language}`} data-testid={testId}>
        <code>{highlight(code, language)}</code>
      </pre>
    );
  }
  const lines = highlightLines(code, language);
  return (
    <pre className={`code code-numbered lang-${language}`} data-testid={testId} ref={pre}>
      <code>
        {lines.map((content, i) => (
          <span
            key={i}
            className={`code-line${i + 1 === mark ? " is-marked" : ""}`}
            data-line={i + 1}
            data-testid={i + 1 === mark ? "code-marked-line" : undefined}
          >
            <span className="code-ln" aria-hidden="true">
              {i + 1}
            </span>
            {content}
            {"\n"}
          </span>
        ))}
      </code>
    </pre>
  );
}
