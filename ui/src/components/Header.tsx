import { Link } from "./Link";
import { Logo } from "./Icons";
import { ProjectSwitcher } from "./ProjectSwitcher";
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
        <Link href="/catalog" className={path.startsWith("/catalog") ? "active" : ""} testId="nav-catalog">
          Catalog
        </Link>
        <Link href="/glossary" className={path === "/glossary" ? "active" : ""} testId="nav-glossary">
          Glossary
        </Link>
      </nav>
      <SearchBox />
      <ProjectSwitcher />
      <a className="topbar-api" href="/docs" target="_blank" rel="noreferrer">
        API
      </a>
    </header>
  );
}
