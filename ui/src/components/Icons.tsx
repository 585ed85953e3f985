// Inline SVG icons (no icon font, nothing fetched).
import type { DatasetKind, RunState } from "../api/types";

type P = { size?: number; className?: string };
const svg = (size: number, className: string | undefined, children: React.ReactNode, title?: string) => (
  <svg
    width={size}
    height={size}
    viewBox="0 0 24 24"
    fill="none"
    stroke="currentColor"
    strokeWidth={1.8}
    strokeLinecap="round"
    strokeLinejoin="round"
    className={className}
    aria-hidden={title ? undefined : true}
    role={title ? "img" : undefined}
  >
    {title ? <title>{title}</title> : null}
    {children}
  </svg>
);

export const FileIcon = ({ size = 18, className }: P) =>
  svg(size, className, <><path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z" /><path d="M14 3v5h5" /><path d="M9 13h6M9 17h4" /></>, "file");
export const TableIcon = ({ size = 18, className }: P) =>
  svg(size, className, <><rect x="3" y="4" width="18" height="16" rx="2" /><path d="M3 10h18M3 15h18M10 4v16" /></>, "table");
export const JdbcIcon = ({ size = 18, className }: P) =>
  svg(size, className, <><ellipse cx="12" cy="5.5" rx="7.5" ry="2.8" /><path d="M4.5 5.5v13c0 1.5 3.4 2.8 7.5 2.8s7.5-1.3 7.5-2.8v-13" /><path d="M4.5 12c0 1.5 3.4 2.8 7.5 2.8s7.5-1.3 7.5-2.8" /></>, "JDBC table");
export const StreamIcon = ({ size = 18, className }: P) =>
  svg(size, className, <><path d="M3 8c3-2 6 2 9 0s6-2 9 0M3 13c3-2 6 2 9 0s6-2 9 0M3 18c3-2 6 2 9 0s6-2 9 0" /></>, "stream");
export const OtherIcon = ({ size = 18, className }: P) =>
  svg(size, className, <><path d="M12 3l8 4.5v9L12 21l-8-4.5v-9z" /><path d="M12 12l8-4.5M12 12v9M12 12L4 7.5" /></>, "dataset");
export const JobIcon = ({ size = 18, className }: P) =>
  svg(size, className, <><circle cx="12" cy="12" r="3" /><path d="M12 2v3M12 19v3M4.9 4.9l2.1 2.1M17 17l2.1 2.1M2 12h3M19 12h3M4.9 19.1L7 17M17 7l2.1-2.1" /></>, "job");
export const SearchIcon = ({ size = 16, className }: P) =>
  svg(size, className, <><circle cx="11" cy="11" r="7" /><path d="M20 20l-3.5-3.5" /></>);
export const ColumnsIcon = ({ size = 14, className }: P) =>
  svg(size, className, <><path d="M4 6h16M4 12h16M4 18h16" /></>);
export const ChevronsLeft = ({ size = 14, className }: P) => svg(size, className, <><path d="M11 17l-5-5 5-5M18 17l-5-5 5-5" /></>);
export const ChevronsRight = ({ size = 14, className }: P) => svg(size, className, <><path d="M13 17l5-5-5-5M6 17l5-5-5-5" /></>);
export const ClockIcon = ({ size = 16, className }: P) => svg(size, className, <><circle cx="12" cy="12" r="9" /><path d="M12 7v5l3 2" /></>);
export const CloseIcon = ({ size = 16, className }: P) => svg(size, className, <><path d="M6 6l12 12M18 6L6 18" /></>);
export const PlusIcon = ({ size = 16, className }: P) => svg(size, className, <><path d="M12 5v14M5 12h14" /></>);
export const MinusIcon = ({ size = 16, className }: P) => svg(size, className, <><path d="M5 12h14" /></>);
export const FitIcon = ({ size = 16, className }: P) => svg(size, className, <><path d="M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5" /></>);
export const MapIcon = ({ size = 16, className }: P) => svg(size, className, <><path d="M3 6l6-2 6 2 6-2v14l-6 2-6-2-6 2z" /><path d="M9 4v14M15 6v14" /></>);
export const MenuIcon = ({ size = 16, className }: P) => svg(size, className, <><path d="M4 7h16M4 12h16M4 17h16" /></>);
export const DownloadIcon = ({ size = 16, className }: P) => svg(size, className, <><path d="M12 4v11M7 10l5 5 5-5M5 20h14" /></>);

export function DatasetKindIcon({ kind, size = 18, className }: { kind?: DatasetKind | null } & P) {
  switch (kind) {
    case "file":
      return <FileIcon size={size} className={className} />;
    case "table":
      return <TableIcon size={size} className={className} />;
    case "jdbc":
      return <JdbcIcon size={size} className={className} />;
    case "stream":
      return <StreamIcon size={size} className={className} />;
    default:
      return <OtherIcon size={size} className={className} />;
  }
}

export function RunStateBadge({ state }: { state: RunState | null | undefined }) {
  if (!state) return <span className="badge badge-none">no runs</span>;
  return (
    <span className={`badge badge-${state.toLowerCase()}`} data-testid="run-state">
      {state}
    </span>
  );
}

export function Logo() {
  return (
    <svg width="26" height="26" viewBox="0 0 32 32" aria-hidden>
      <rect width="32" height="32" rx="7" fill="#0f766e" />
      <path d="M6 22c4-1 6-5 10-5s6 4 10 5M6 15c4-1 6-5 10-5s6 4 10 5" stroke="#ecfeff" strokeWidth="2.6" fill="none" strokeLinecap="round" />
    </svg>
  );
}
