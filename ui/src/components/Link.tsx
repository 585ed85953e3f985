import { onLinkClick } from "../lib/router";

export function Link({ href, className, children, testId, title }: { href: string; className?: string; children: React.ReactNode; testId?: string; title?: string }) {
  return (
    <a href={href} className={className} data-testid={testId} title={title} onClick={(e) => onLinkClick(e, href)}>
      {children}
    </a>
  );
}
