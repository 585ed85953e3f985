"""A SQL script → its statements, each with its own text and position (pure).

Statements are split at ``;`` by sqlglot's tokenizer (so semicolons in strings, comments and dollar-quoted
bodies are not split points), except inside ``BEGIN … END`` and ``CASE … END`` blocks (stored-procedure
bodies; ``END IF``/``END LOOP``/``END FOR`` close no block; a PL/SQL or Snowflake ``DECLARE … BEGIN … END`` and a
``CREATE PROCEDURE … IS|AS … BEGIN … END`` are one piece). Each piece is parsed on its own, so one statement the
parser cannot read never stops the rest.

Procedural pieces (``BEGIN … END`` blocks, T-SQL ``TRY/CATCH``, ``CREATE PROCEDURE``/``FUNCTION``, ``DO``,
``EXECUTE IMMEDIATE``, Snowflake scripting) are not parsed whole: :func:`block_statements` finds the DML
statements inside (also inside a ``$$``/quoted body) by their first keyword and where the next statement or a
control keyword begins, and each is parsed on its own (``Statement.block``), so every one is analysed and the
ones the parser cannot read are named.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.parser import Parser
from sqlglot.tokenizer_core import Token, TokenType
from sqlglot.tokens import Tokenizer

from .dialects import sqlglot_dialect


@dataclass
class Statement:
    index: int  # 0-based, in the script
    sql: str  # the statement's own text, as written
    line: int  # 1-based position of its first token in the script
    col: int
    expression: exp.Expr | None = None  # the syntax tree (analyze_script lets it go once the statement is read)
    error: str | None = None  # why it could not be parsed (with line and column in the script)
    block: list[Statement] | None = None  # a procedural piece: the statements found inside, each parsed on its own
    variables: frozenset[str] = frozenset()  # names a procedural piece declares (DECLARE, LET, IS/AS sections)


class _Tools(threading.local):
    """Each thread's tokenizer and parser per dialect: sqlglot's are reusable (each call starts afresh) but not
    shareable between threads, and making them is a good part of a short statement's cost."""

    def __init__(self) -> None:
        self.tokenizers: dict[str, Tokenizer] = {}
        self.parsers: dict[str, Parser] = {}


_TOOLS = _Tools()


def tokenize(text: str, dialect: str) -> list[Token]:
    """sqlglot's tokens of ``text`` (raises TokenError, or ValueError for a dialect sqlglot does not know)."""
    tokenizer = _TOOLS.tokenizers.get(dialect)
    if tokenizer is None:
        tokenizer = _TOOLS.tokenizers[dialect] = sqlglot_dialect(dialect).tokenizer()
    return tokenizer.tokenize(text)


def parse(text: str, dialect: str, tokens: list[Token] | None = None) -> list[exp.Expr]:
    """The statements of ``text`` (its ``tokens`` when already read), as sqlglot parses them."""
    parser = _TOOLS.parsers.get(dialect)
    if parser is None:
        parser = _TOOLS.parsers[dialect] = sqlglot_dialect(dialect).parser()
    return [e for e in parser.parse(tokens if tokens is not None else tokenize(text, dialect), text) if e is not None]


def parse_one(text: str, dialect: str) -> exp.Expr:
    """The one statement of ``text`` (ParseError when there is none)."""
    parsed = parse(text, dialect)
    if not parsed:
        raise ParseError(f"no statement in {text[:40]!r}")
    return parsed[0]


_OPENERS = {TokenType.BEGIN, TokenType.CASE}
_NOT_A_BLOCK = {TokenType.SEMICOLON}
_TRANSACTION_WORDS = {
    "TRANSACTION",
    "TRAN",
    "WORK",
    "ISOLATION",
    "DEFERRED",
    "IMMEDIATE",
    "EXCLUSIVE",
    "READ",
}  # BEGIN; / BEGIN TRANSACTION (not a block)


def split(text: str, dialect: str) -> list[tuple[str, int, int]]:
    """``(statement text, line, col)`` of each statement of ``text``."""
    return _split(text, dialect)[0]


def _split(text: str, dialect: str) -> tuple[list[tuple[str, int, int]], list[Token] | None]:
    """The pieces of :func:`split` and the tokens of ``text`` (None when it cannot be tokenized)."""
    try:
        tokens = tokenize(text, dialect)
    except (TokenError, ValueError):
        stripped = text.strip()
        return ([(stripped, 1, 1)] if stripped else []), None
    if ";" not in text:  # no statement end: one piece, whatever blocks it opens (the usual one-statement call)
        return ([_piece(text, tokens[0], tokens[-1])] if tokens else []), tokens
    pieces: list[tuple[str, int, int]] = []
    start = None
    depth = 0
    pending = False  # a DECLARE section or a procedure header whose block opens at its BEGIN
    for i, tok in enumerate(tokens):
        kind = tok.token_type
        if start is None:
            if kind == TokenType.SEMICOLON:
                continue
            start = tok
            if _block_header(tokens, i, dialect):
                pending = True
                depth += 1
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        if pending and kind in _BODY_STRINGS:  # CREATE PROCEDURE … AS $$ … $$: the body is one token
            pending = False
            depth -= 1
        elif kind in _OPENERS:
            if kind == TokenType.CASE or (
                after is not None
                and after.token_type not in _NOT_A_BLOCK
                and after.text.upper() not in _TRANSACTION_WORDS
            ):
                if pending and kind == TokenType.BEGIN:
                    pending = False  # the header's block: already counted
                else:
                    depth += 1
        elif kind == TokenType.END and depth > 0:
            if after is None or after.text.upper() not in _END_OF_STATEMENT:
                depth -= 1
        elif kind == TokenType.SEMICOLON and depth == 0:  # type: ignore[comparison-overlap]  # mypy keeps the narrowing of the `start is None` branch above
            pieces.append(_piece(text, start, tokens[i - 1]))
            start = None
    if start is not None:
        pieces.append(_piece(text, start, tokens[-1]))
    return pieces, tokens


_END_OF_STATEMENT = {"IF", "LOOP", "WHILE", "FOR", "REPEAT"}  # END IF … closes a statement, not a BEGIN block
_BODY_STRINGS = {TokenType.STRING, TokenType.HEREDOC_STRING, TokenType.RAW_STRING}
_ROUTINES = {"PROCEDURE", "PROC", "FUNCTION", "TRIGGER", "PACKAGE"}


def _block_header(tokens: list[Token], i: int, dialect: str) -> bool:
    """Does the statement starting at ``tokens[i]`` open its block at a later BEGIN (its ``;`` before it are not
    statement ends)? A ``DECLARE`` section (not T-SQL's ``DECLARE @v``) and a routine header outside T-SQL."""
    first = tokens[i].text.upper()
    if first == "DECLARE":
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        return dialect not in ("tsql", "fabric") and after is not None and after.token_type != TokenType.PARAMETER
    if first not in ("CREATE", "ALTER") or dialect in ("tsql", "fabric"):
        return False
    words = [t.text.upper() for t in tokens[i + 1 : i + 5]]
    return any(w in _ROUTINES for w in words)


def _piece(text: str, first: Token, last: Token) -> tuple[str, int, int]:
    line_start = text.rfind("\n", 0, first.start) + 1
    return text[first.start : last.end + 1].strip(), first.line, first.start - line_start + 1


_UNLOAD = re.compile(r"(?is)^\s*unload\b(.*)$")


def parse_script(text: str, dialect: str) -> list[Statement]:
    return list(iter_script(text, dialect))


def iter_script(text: str, dialect: str) -> Iterator[Statement]:
    return read_script(text, dialect)[1]


def read_script(text: str, dialect: str) -> tuple[int, Iterator[Statement]]:
    """How many statements ``text`` has, and the statements in order, each parsed when it is asked for (a long
    script's syntax trees need not all be in memory at once)."""
    pieces, tokens = _split(text, dialect)
    # one statement starting on the script's first line: parsed from the tokens already read (not tokenized twice)
    reuse = tokens if len(pieces) == 1 and pieces[0][1] == 1 else None
    return len(pieces), _statements(text, dialect, pieces, reuse)


def _statements(
    text: str, dialect: str, pieces: list[tuple[str, int, int]], reuse: list[Token] | None
) -> Iterator[Statement]:
    for index, (sql, line, col) in enumerate(pieces):
        stmt = Statement(index, sql, line, col)
        variables: set[str] = set()
        inner = block_statements(sql, dialect, line, variables) if _MAYBE_PROCEDURAL.match(sql) else None
        if inner is not None:
            stmt.block = [_parsed(Statement(index, piece, ln, c), dialect) for piece, ln, c in inner]
            stmt.variables = frozenset(variables)
            yield stmt
            continue
        unload = _UNLOAD.match(sql)
        if unload:  # Redshift UNLOAD: sqlglot has no grammar for it (it would log a warning and keep a Command)
            stmt.expression = exp.Command(this="UNLOAD", expression=exp.Literal.string(unload.group(1)))
            yield stmt
            continue
        yield _parsed(stmt, dialect, reuse, text)


_OUTPUT_INTO = re.compile(r"(?is)(\bOUTPUT\b[^;]*?\bINTO\s+)((?:\[[^\]]+\]|\w+)(?:\.(?:\[[^\]]+\]|\w+))+)")


_IMMEDIATE_STRING = re.compile(r"(?is)^immediate\s*[$']")  # a tokenizer keeping "IMMEDIATE '…'" as one string
_DELETE_OUTPUT = re.compile(
    r"(?is)^\s*DELETE\s+(?:FROM\s+)?(\S+)\s+OUTPUT\s+(.*?)\s+INTO\s+(\S+(?:\s*\([^)]*\))?)\s*(WHERE\b.*)?;?\s*$"
)


def _one_identifier(m: re.Match[str]) -> str:
    return m.group(1) + "[" + ".".join(p.strip("[]") for p in m.group(2).split(".")) + "]"


def _parsed(stmt: Statement, dialect: str, tokens: list[Token] | None = None, text: str = "") -> Statement:
    try:
        if tokens is not None:
            parsed = parse(text, dialect, tokens)
        else:
            parsed = parse(stmt.sql, dialect)
    except (ParseError, TokenError) as exc:
        stmt.error = _message(exc, stmt.line)
        named = _OUTPUT_INTO.sub(_one_identifier, stmt.sql) if dialect in ("tsql", "fabric") else stmt.sql
        deleted = _DELETE_OUTPUT.match(stmt.sql) if dialect in ("tsql", "fabric") else None
        if deleted:  # DELETE t OUTPUT deleted.c INTO a: what it writes is INSERT INTO a SELECT deleted.c FROM t deleted
            target, values, into, rest = deleted.groups()
            named = f"INSERT INTO {into} SELECT {values} FROM {target} AS deleted {rest or ''}"
        if named != stmt.sql:  # sqlglot reads OUTPUT … INTO only with a one-part name: the name as one identifier
            try:
                parsed = parse(named, dialect)
            except (ParseError, TokenError):
                return stmt
            stmt.error = None
            stmt.expression = parsed[0] if len(parsed) == 1 else exp.Block(expressions=parsed)
    except Exception as exc:  # noqa: BLE001 - a parser bug on one statement must not stop the script
        stmt.error = f"the parser failed: {type(exc).__name__}: {exc}"
    else:
        if len(parsed) == 1:
            stmt.expression = parsed[0]
        elif parsed:
            stmt.expression = exp.Block(expressions=parsed)
    return stmt


# --- procedural blocks ------------------------------------------------------------------------------------------

_STARTERS = {"INSERT", "UPDATE", "DELETE", "MERGE", "CREATE", "SELECT", "REPLACE", "COPY", "WITH", "UNLOAD"}
# keywords that end a statement written without its ``;`` (T-SQL) when met at its own level: control flow
_CONTROL = {
    "END", "BEGIN", "ELSE", "ELSEIF", "ELSIF", "DECLARE", "RETURN", "COMMIT", "ROLLBACK", "EXEC", "EXECUTE",
    "LET", "WHILE", "LOOP", "RAISE", "RAISERROR", "THROW", "CALL", "GO", "EXCEPTION", "TRUNCATE", "DROP", "PERFORM",
}  # fmt: skip
_NOT_AFTER = {
    "THEN",
    "KEY",
    "FOR",
    "ON",
    "OR",
    "INSTEAD",
    "BEFORE",
    "AFTER",
}  # MERGE … THEN UPDATE, FOR UPDATE, ON DELETE
_ROUTINE_HEAD = {"TABLE", "VIEW", "INDEX", "SCHEMA", "DATABASE", "SEQUENCE", "TYPE", "TRIGGER", "EXISTS", "NOT"}
_MAYBE_PROCEDURAL = re.compile(
    r"(?is)^\s*(?:begin|declare|do|if|while|for|loop|exec|execute"
    r"|(?:create|alter)\b.{0,60}?\b(?:procedure|proc|function|trigger|package)\b)"
)  # a cheap look at the first words before tokenizing a piece again
_DML_TEXT = re.compile(r"(?is)\b(insert|update|merge|create|select|delete|replace|copy|unload)\b")
_BODY = re.compile(r"(?is)^\s*(?:immediate\s+)?(\$[A-Za-z0-9_]*\$)(.*)\1\s*;?\s*$")


def _is_procedural(tokens: list[Token], dialect: str) -> bool:
    words = [t.text.upper() for t in tokens[:6]]
    if not words:
        return False
    first = words[0]
    if first == "BEGIN":
        return len(words) > 1 and tokens[1].token_type != TokenType.SEMICOLON and words[1] not in _TRANSACTION_WORDS
    if first in ("DECLARE", "DO", "IF", "WHILE", "FOR", "LOOP"):
        return not (first == "DECLARE" and dialect in ("tsql", "fabric") and len(words) > 1 and words[1] == "@")
    if first == "EXECUTE" or first == "EXEC":
        return len(tokens) > 1 and "IMMEDIATE" in tokens[1].text.upper()[:12]
    if first in ("CREATE", "ALTER"):
        return any(w in _ROUTINES for w in words[1:5])
    return False


def block_statements(
    sql: str, dialect: str, line: int = 1, variables: set[str] | None = None
) -> list[tuple[str, int, int]] | None:
    """The statements inside a procedural piece (``(text, line, col)`` in the script), or None when ``sql`` is
    not procedural. Only statements starting with a DML/DDL keyword are kept (control flow is skipped). The names
    the block declares (``DECLARE n INT``, ``LET n :=``, a PL/SQL ``IS`` section) are added to ``variables``."""
    try:
        tokens = tokenize(sql, dialect)
    except (TokenError, ValueError):
        return None
    if not _is_procedural(tokens, dialect):
        return None
    return _scan(sql, tokens, dialect, line, variables if variables is not None else set())


def _scan(text: str, tokens: list[Token], dialect: str, line: int, variables: set[str]) -> list[tuple[str, int, int]]:
    found: list[tuple[str, int, int]] = []
    declaring = False  # in a DECLARE section: each declaration's first name is a variable
    declare_next = False
    start: int | None = None  # token index of the statement under way
    start_depth = 0
    depth = 0  # parentheses
    cases = 0  # CASE … END inside the statement
    seen_from = False  # a FROM at the statement's own level (a later SELECT starts a new statement)
    seen_set = False
    seen_body = False  # an INSERT's SELECT or VALUES began (a later SET is T-SQL's next statement)
    head = ""
    skip_header = any(t.text.upper() in _ROUTINES for t in tokens[:5]) and tokens[0].text.upper() in (
        "CREATE",
        "ALTER",
    )
    body_from = 0
    if skip_header:  # CREATE PROCEDURE name (args) … AS|IS: the body starts after the first AS/IS at depth 0
        if dialect == "oracle":  # … IS v NUMBER; … BEGIN: a declare section
            declaring = declare_next = True
        d = 0
        for i, tok in enumerate(tokens):
            d += tok.token_type == TokenType.L_PAREN
            d -= tok.token_type == TokenType.R_PAREN
            if d == 0 and tok.text.upper() in ("AS", "IS", "BEGIN") and i > 1:
                body_from = i + (tok.text.upper() != "BEGIN")
                break
            if tok.token_type in _BODY_STRINGS and i > 1:
                body_from = i
                break

    def close(last: int) -> None:
        nonlocal start
        if start is not None and last >= start:
            first = tokens[start]
            piece = text[first.start : tokens[last].end + 1].strip()
            line_start = text.rfind("\n", 0, first.start) + 1
            found.append((piece, line + text.count("\n", 0, first.start), first.start - line_start + 1))
        start = None

    for i in range(body_from, len(tokens)):
        tok = tokens[i]
        kind = tok.token_type
        word = tok.text.upper()
        prev = tokens[i - 1].text.upper() if i > 0 else ""
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if kind == TokenType.L_PAREN:
            depth += 1
        elif kind == TokenType.R_PAREN:
            depth -= 1
            if start is not None and depth < start_depth:
                close(i - 1)
            continue
        if start is not None:
            if kind == TokenType.SEMICOLON and depth <= start_depth:
                close(i - 1)
                continue
            if depth > start_depth:
                continue
            if kind == TokenType.CASE:
                cases += 1
                continue
            if kind == TokenType.END and cases > 0:
                cases -= 1
                continue
            if word == "FROM":
                seen_from = True
            if word in ("SELECT", "VALUES", "VALUE"):
                seen_body = True
            if kind == TokenType.IDENTIFIER or prev == ".":  # a quoted name, a qualified column: never a keyword
                continue
            ends = False
            if (
                word in _CONTROL
                and prev not in _NOT_AFTER
                or word in ("INSERT", "UPDATE", "DELETE", "MERGE", "CREATE")
                and prev not in _NOT_AFTER
                or word == "SELECT"
                and seen_from
                and prev not in ("UNION", "ALL", "INTERSECT", "EXCEPT", "MINUS", "DISTINCT", "(")
            ):
                ends = True
            elif word == "SET" and not (head in ("UPDATE", "MERGE") and not seen_set) and prev != "UPDATE":
                ends = head not in ("INSERT", "REPLACE") or seen_body  # MySQL's INSERT … SET a = 1 is one
            elif word == "IF" and (nxt is None or nxt.token_type != TokenType.L_PAREN) and prev not in _ROUTINE_HEAD:
                ends = True
            if word == "SET":
                seen_set = True
            if not ends:
                continue
            close(i - 1)
        # between statements: a DML keyword starts one; a body in a string is scanned too
        if declare_next and kind == TokenType.STRING and prev == "DECLARE":  # a tokenizer that keeps DECLARE's
            first = re.match(r"\s*([A-Za-z_][A-Za-z0-9_$]*)", tok.text)  # text as one string: its first name
            if first:
                variables.add(first.group(1))
            declare_next = False
            continue
        if kind in _BODY_STRINGS or (kind == TokenType.STRING):
            body = tok.text
            m = _BODY.match(body)
            if m:
                body = m.group(2)
            elif body.upper().startswith("IMMEDIATE"):
                body = body[len("IMMEDIATE") :].strip().strip("'")
            if _DML_TEXT.search(body):
                try:
                    inner = tokenize(body, dialect)
                except (TokenError, ValueError):
                    continue
                offset = tok.text.find(body[:40]) if body[:40] else 0
                at = line + text.count("\n", 0, tok.start) + tok.text.count("\n", 0, max(offset, 0))
                found.extend(_scan(body, inner, dialect, at, variables))
            continue
        if word == "BEGIN":
            declaring = declare_next = False
        elif word in ("DECLARE", "LET") or (declaring and kind == TokenType.SEMICOLON):
            declaring, declare_next = word != "LET" and (word == "DECLARE" or declaring), True
            continue
        elif declare_next and kind in (TokenType.VAR, TokenType.IDENTIFIER) and word not in _STARTERS:
            variables.add(tok.text)
            declare_next = False
            continue
        elif declare_next and kind != TokenType.COMMA:
            declare_next = False
        if (
            word in ("EXEC", "EXECUTE")
            and prev not in ("GRANT", "REVOKE", ",")
            and not (nxt is not None and nxt.text.upper() == "IMMEDIATE" and _is_body(tokens, i + 2))
            and not (_is_body(tokens, i + 1) and _IMMEDIATE_STRING.match(nxt.text if nxt is not None else ""))
        ):  # dynamic SQL or a procedure call: a statement of its own (named as not analysed, or its constant read)
            start, start_depth, cases, seen_from, seen_set, head = i, depth, 0, False, False, word
            seen_body = False
            continue
        if word in _STARTERS and not (word == "REPLACE" and nxt is not None and nxt.token_type == TokenType.L_PAREN):
            if word == "CREATE" and any(t.text.upper() in _ROUTINES for t in tokens[i + 1 : i + 5]):
                continue  # a routine defined inside a block: its own body is another statement
            start, start_depth, cases, seen_from, seen_set, head = i, depth, 0, False, False, word
            seen_body = False
    if start is not None:
        last = len(tokens) - 1
        while last > start and tokens[last].token_type == TokenType.SEMICOLON:
            last -= 1
        close(last)
    return found


def _is_body(tokens: list[Token], i: int) -> bool:
    """A string at ``tokens[i]``: ``EXECUTE IMMEDIATE '…'`` / ``$$ … $$`` is read in place (its body scanned)."""
    return i < len(tokens) and tokens[i].token_type in _BODY_STRINGS


def _message(exc: Exception, line: int) -> str:
    if isinstance(exc, ParseError) and exc.errors:
        first = exc.errors[0]
        where = ""
        if first.get("line"):
            where = (
                f" at line {line + int(first['line']) - 1} of the script, column {first.get('col')} of the statement"
            )
        return f"{first.get('description') or 'cannot parse'}{where}"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
