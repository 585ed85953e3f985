import { Link } from "./Link";
import { Logo } from "./Icons";
import { SearchBox } from "./SearchBox";

export function Header({ path }: { path: string }) {
  return (
    <header className="topbar">
      <Link href="/" className="brand">
        <Logo />
        <span>Headwater</span>
      </Link>
      <nav className="topnav">
        <Link href="/" className={path === "/" ? "active" : ""}>
          Home
        </Link>
        <Link href="/namespaces" className={path.startsWith("/namespaces") ? "active" : ""}>
          Namespaces
        </Link>
      </nav>
      <SearchBox />
      <a className="topbar-api" href="/docs" target="_blank" rel="noreferrer">
        API
      </a>
    </header>
  );
}
