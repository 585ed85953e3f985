"""A SQL script → its statements, each with its own text and position (pure).

Statements are split at ``;`` by sqlglot's tokenizer (so semicolons in strings, comments and dollar-quoted
bodies are not split points), except inside ``BEGIN … END`` and ``CASE … END`` blocks (stored-procedure
bodies). Each piece is parsed on its own, so one statement the parser cannot read never stops the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokenizer_core import TokenType


@dataclass
class Statement:
    index: int  # 0-based, in the script
    sql: str  # the statement's own text, as written
    line: int  # 1-based position of its first token in the script
    col: int
    expression: exp.Expr | None = None
    error: str | None = None  # why it could not be parsed (with line and column in the script)


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
    try:
        tokens = sqlglot.Dialect.get_or_raise(dialect).tokenize(text)
    except (TokenError, ValueError):
        stripped = text.strip()
        return [(stripped, 1, 1)] if stripped else []
    pieces: list[tuple[str, int, int]] = []
    start = None
    depth = 0
    for i, tok in enumerate(tokens):
        kind = tok.token_type
        if start is None:
            if kind == TokenType.SEMICOLON:
                continue
            start = tok
        if kind in _OPENERS:
            after = tokens[i + 1] if i + 1 < len(tokens) else None
            if kind == TokenType.CASE or (
                after is not None
                and after.token_type not in _NOT_A_BLOCK
                and after.text.upper() not in _TRANSACTION_WORDS
            ):
                depth += 1
        elif kind == TokenType.END and depth > 0:
            depth -= 1
        elif kind == TokenType.SEMICOLON and depth == 0:  # type: ignore[comparison-overlap]  # mypy keeps the narrowing of the `start is None` branch above
            pieces.append(_piece(text, start, tokens[i - 1]))
            start = None
    if start is not None:
        pieces.append(_piece(text, start, tokens[-1]))
    return pieces


def _piece(text: str, first: Any, last: Any) -> tuple[str, int, int]:  # two sqlglot Tokens
    line_start = text.rfind("\n", 0, first.start) + 1
    return text[first.start : last.end + 1].strip(), first.line, first.start - line_start + 1


_UNLOAD = re.compile(r"(?is)^\s*unload\b(.*)$")


def parse_script(text: str, dialect: str) -> list[Statement]:
    out: list[Statement] = []
    for index, (sql, line, col) in enumerate(split(text, dialect)):
        stmt = Statement(index, sql, line, col)
        unload = _UNLOAD.match(sql)
        if unload:  # Redshift UNLOAD: sqlglot has no grammar for it (it would log a warning and keep a Command)
            stmt.expression = exp.Command(this="UNLOAD", expression=exp.Literal.string(unload.group(1)))
            out.append(stmt)
            continue
        try:
            parsed = [e for e in sqlglot.parse(sql, read=dialect or None) if e is not None]
        except (ParseError, TokenError) as exc:
            stmt.error = _message(exc, line)
        except Exception as exc:  # noqa: BLE001 - a parser bug on one statement must not stop the script
            stmt.error = f"the parser failed: {type(exc).__name__}: {exc}"
        else:
            if len(parsed) == 1:
                stmt.expression = parsed[0]
            elif parsed:
                stmt.expression = exp.Block(expressions=parsed)
        out.append(stmt)
    return out


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
