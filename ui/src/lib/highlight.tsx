// Syntax highlighting that renders React elements from Prism's token tree: no innerHTML, so
// text from events can never become markup.
import Prism from "prismjs";
import "prismjs/components/prism-sql";
import "prismjs/components/prism-json";
import "prismjs/components/prism-python";
import "prismjs/components/prism-java";
import "prismjs/components/prism-scala";
import type { ReactNode } from "react";

function render(tokens: Array<string | Prism.Token>, key = "t"): ReactNode[] {
  return tokens.map((t, i) => {
    if (typeof t === "string") return t;
    const content = Array.isArray(t.content)
      ? render(t.content as Array<string | Prism.Token>, `${key}.${i}`)
      : typeof t.content === "string"
        ? t.content
        : render([t.content as Prism.Token], `${key}.${i}`);
    return (
      <span key={`${key}.${i}`} className={`tok tok-${t.type}`}>
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

export function CodeBlock({ code, language, testId }: { code: string; language: string; testId?: string }) {
  return (
    <pre className={`code lang-${language}`} data-testid={testId}>
      <code>{highlight(code, language)}</code>
    </pre>
  );
}
