//! The jinja2 templates of kerchunk's references, as far as kerchunk uses them: text with
//! `{{ expression }}` blocks, where an expression is integer arithmetic over variables (a `gen`
//! generator's dimensions, the file's `templates`): integers, `+ - * // %`, unary `-` and `+`,
//! parentheses and names. Anything else jinja2 has (statements, filters, calls, `/`, strings,
//! comparisons) is refused with an error saying what was found: a reference file is data a
//! server controls, and is never executed. Evaluation is bounded: expressions are at most
//! `MAX_EXPRESSION` characters, nest at most `MAX_NESTING` parentheses deep, and overflow is an
//! error, as is division by zero. `//` and `%` round as Python's do (towards negative infinity).
//! Rendering is bounded too: the caller says the longest text it takes, and a rendering that would
//! be longer stops before its next piece is added (a template may use a 64 KiB one many times).

use std::fmt;
use std::fmt::Write;

/// The longest expression inside one `{{ }}`.
pub const MAX_EXPRESSION: usize = 1000;
/// The deepest nesting of parentheses and unary signs.
pub const MAX_NESTING: usize = 32;

/// A variable's value: an integer (a dimension's) or text (a template's, lent: not copied per
/// use).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value<'a> {
    Int(i64),
    Text(&'a str),
}

impl fmt::Display for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Text(t) => f.write_str(t),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
    FloorDiv,
    Mod,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Expr {
    Int(i64),
    Var(String),
    Neg(Box<Expr>),
    Binary(Op, Box<Expr>, Box<Expr>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Expr(Expr),
}

/// A parsed template: literal text and expressions, rendered many times (once per generated key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    parts: Vec<Part>,
}

impl Template {
    /// Parses `source`; the error says what is not supported and where.
    pub fn parse(source: &str) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut rest = source;
        loop {
            // The first of "{{", "{%" and "{#", in one scan (three searches of the rest, each to
            // its end, made a text of many blocks quadratic: 40,000 took seconds).
            let open = rest
                .as_bytes()
                .windows(2)
                .position(|w| w[0] == b'{' && matches!(w[1], b'{' | b'%' | b'#'))
                .map(|at| (at, &rest[at..at + 2]));
            let Some((at, marker)) = open else {
                if !rest.is_empty() {
                    parts.push(Part::Text(rest.to_string()));
                }
                return Ok(Template { parts });
            };
            if marker != "{{" {
                return Err(format!(
                    "jinja2 {} (\"{marker}\") are not supported in references: only {{{{ expression }}}}",
                    if marker == "{%" { "statements" } else { "comments" }
                ));
            }
            if at > 0 {
                parts.push(Part::Text(rest[..at].to_string()));
            }
            let inner = &rest[at + 2..];
            let close = inner
                .find("}}")
                .ok_or_else(|| "a \"{{\" without its \"}}\"".to_string())?;
            parts.push(Part::Expr(parse_expression(&inner[..close])?));
            rest = &inner[close + 2..];
        }
    }

    /// Whether the template is only text.
    pub fn is_literal(&self) -> bool {
        self.parts.iter().all(|p| matches!(p, Part::Text(_)))
    }

    /// The text, its expressions evaluated with `lookup`'s variables, or an error where it would
    /// be longer than `max` bytes (said before the piece that would make it longer is added). A
    /// variable that is text may only stand alone in its `{{ }}`; its text is given by `lookup`
    /// already rendered.
    pub fn render<'v>(
        &self,
        lookup: &dyn Fn(&str) -> Result<Option<Value<'v>>, String>,
        max: usize,
    ) -> Result<String, String> {
        let mut out = String::new();
        let mut number = String::new();
        for part in &self.parts {
            number.clear();
            let piece: &str = match part {
                Part::Text(t) => t,
                Part::Expr(Expr::Var(name)) => match lookup(name)? {
                    Some(Value::Text(t)) => t,
                    Some(Value::Int(n)) => {
                        let _ = write!(number, "{n}");
                        &number
                    }
                    None => return Err(unknown(name)),
                },
                Part::Expr(e) => {
                    let _ = write!(number, "{}", evaluate(e, lookup)?);
                    &number
                }
            };
            if piece.len() > max - out.len() {
                return Err(format!("it renders to more than {max} characters"));
            }
            out.push_str(piece);
        }
        Ok(out)
    }

    /// The names the template uses, in order (with repeats).
    pub fn names(&self) -> Vec<&str> {
        fn walk<'a>(e: &'a Expr, out: &mut Vec<&'a str>) {
            match e {
                Expr::Int(_) => {}
                Expr::Var(n) => out.push(n),
                Expr::Neg(e) => walk(e, out),
                Expr::Binary(_, a, b) => {
                    walk(a, out);
                    walk(b, out);
                }
            }
        }
        let mut out = Vec::new();
        for part in &self.parts {
            if let Part::Expr(e) = part {
                walk(e, &mut out);
            }
        }
        out
    }
}

fn unknown(name: &str) -> String {
    format!("unknown variable \"{name}\" (neither a dimension nor a template)")
}

fn evaluate<'v>(
    e: &Expr,
    lookup: &dyn Fn(&str) -> Result<Option<Value<'v>>, String>,
) -> Result<i64, String> {
    let overflow = || "integer overflow".to_string();
    match e {
        Expr::Int(n) => Ok(*n),
        Expr::Var(name) => match lookup(name)? {
            Some(Value::Int(n)) => Ok(n),
            Some(Value::Text(t)) => Err(format!(
                "\"{name}\" is text ({}), not an integer: it cannot be used in arithmetic",
                crate::error::quote_text(format!("{t:?}"))
            )),
            None => Err(unknown(name)),
        },
        Expr::Neg(e) => evaluate(e, lookup)?.checked_neg().ok_or_else(overflow),
        Expr::Binary(op, a, b) => {
            let (a, b) = (evaluate(a, lookup)?, evaluate(b, lookup)?);
            match op {
                Op::Add => a.checked_add(b).ok_or_else(overflow),
                Op::Sub => a.checked_sub(b).ok_or_else(overflow),
                Op::Mul => a.checked_mul(b).ok_or_else(overflow),
                Op::FloorDiv | Op::Mod if b == 0 => Err("division by zero".to_string()),
                Op::FloorDiv => {
                    let q = a.checked_div(b).ok_or_else(overflow)?;
                    // Python rounds towards negative infinity.
                    Ok(if (a % b != 0) && ((a < 0) != (b < 0)) {
                        q - 1
                    } else {
                        q
                    })
                }
                Op::Mod => {
                    let r = a.checked_rem(b).ok_or_else(overflow)?;
                    // Python's remainder takes the divisor's sign.
                    Ok(if r != 0 && ((r < 0) != (b < 0)) {
                        r + b
                    } else {
                        r
                    })
                }
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Int(i64),
    Name(String),
    Op(Op),
    Open,
    Close,
}

fn tokens(source: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    let bytes = source.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'0'..=b'9' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'_') {
                    i += 1;
                }
                let digits = source[start..i].replace('_', "");
                let n = digits
                    .parse::<i64>()
                    .map_err(|_| format!("the integer {} is too large", &source[start..i]))?;
                out.push(Token::Int(n));
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                out.push(Token::Name(source[start..i].to_string()));
            }
            b'+' => {
                out.push(Token::Op(Op::Add));
                i += 1;
            }
            b'-' => {
                out.push(Token::Op(Op::Sub));
                i += 1;
            }
            b'*' if bytes.get(i + 1) == Some(&b'*') => {
                return Err("\"**\" (powers) is not supported: only + - * // %".to_string())
            }
            b'*' => {
                out.push(Token::Op(Op::Mul));
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                out.push(Token::Op(Op::FloorDiv));
                i += 2;
            }
            b'/' => {
                return Err(
                    "\"/\" makes a fraction in jinja2 and is not supported: use \"//\"".to_string(),
                )
            }
            b'%' => {
                out.push(Token::Op(Op::Mod));
                i += 1;
            }
            b'(' => {
                out.push(Token::Open);
                i += 1;
            }
            b')' => {
                out.push(Token::Close);
                i += 1;
            }
            _ => {
                let ch = source[i..].chars().next().unwrap_or('?');
                return Err(format!(
                    "{ch:?} is not supported in an expression: only integers, names, + - * // % and parentheses"
                ));
            }
        }
    }
    Ok(out)
}

/// Parses one `{{ }}`'s content.
fn parse_expression(source: &str) -> Result<Expr, String> {
    let context = |e: String| format!("{e}, in {{{{{}}}}}", crate::error::quote_text(source));
    if source.len() > MAX_EXPRESSION {
        return Err(context(format!(
            "an expression longer than {MAX_EXPRESSION} characters"
        )));
    }
    if source.contains('|') {
        return Err(context("jinja2 filters (\"|\") are not supported".into()));
    }
    let tokens = tokens(source).map_err(context)?;
    if tokens.is_empty() {
        return Err(context("an empty expression".into()));
    }
    let mut parser = Parser { tokens, at: 0 };
    let e = parser.sum(0).map_err(context)?;
    if parser.at != parser.tokens.len() {
        return Err(context(format!(
            "unexpected {} after a complete expression",
            parser.describe()
        )));
    }
    Ok(e)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn describe(&self) -> String {
        match self.peek() {
            None => "the end".into(),
            Some(Token::Int(n)) => format!("the integer {n}"),
            Some(Token::Name(n)) => format!("the name \"{n}\""),
            Some(Token::Open) => "\"(\"".into(),
            Some(Token::Close) => "\")\"".into(),
            Some(Token::Op(_)) => "an operator".into(),
        }
    }

    fn sum(&mut self, depth: usize) -> Result<Expr, String> {
        let mut left = self.product(depth)?;
        while let Some(Token::Op(op @ (Op::Add | Op::Sub))) = self.peek() {
            let op = *op;
            self.at += 1;
            let right = self.product(depth)?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn product(&mut self, depth: usize) -> Result<Expr, String> {
        let mut left = self.unary(depth)?;
        while let Some(Token::Op(op @ (Op::Mul | Op::FloorDiv | Op::Mod))) = self.peek() {
            let op = *op;
            self.at += 1;
            let right = self.unary(depth)?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self, depth: usize) -> Result<Expr, String> {
        if depth >= MAX_NESTING {
            return Err(format!("nested deeper than {MAX_NESTING}"));
        }
        match self.peek().cloned() {
            Some(Token::Op(Op::Sub)) => {
                self.at += 1;
                Ok(Expr::Neg(Box::new(self.unary(depth + 1)?)))
            }
            Some(Token::Op(Op::Add)) => {
                self.at += 1;
                self.unary(depth + 1)
            }
            Some(Token::Int(n)) => {
                self.at += 1;
                Ok(Expr::Int(n))
            }
            Some(Token::Name(n)) => {
                self.at += 1;
                if matches!(
                    n.as_str(),
                    "and" | "or" | "not" | "in" | "is" | "if" | "else"
                ) {
                    return Err(format!("\"{n}\" is not supported: only arithmetic"));
                }
                if self.peek() == Some(&Token::Open) {
                    return Err(format!(
                        "calls (\"{n}(...)\") are not supported: only arithmetic"
                    ));
                }
                Ok(Expr::Var(n))
            }
            Some(Token::Open) => {
                self.at += 1;
                let e = self.sum(depth + 1)?;
                if self.peek() != Some(&Token::Close) {
                    return Err(format!("expected \")\", found {}", self.describe()));
                }
                self.at += 1;
                Ok(e)
            }
            _ => Err(format!("expected a value, found {}", self.describe())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(source: &str, vars: &[(&str, Value)]) -> Result<String, String> {
        let t = Template::parse(source)?;
        t.render(
            &|name| Ok(vars.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)),
            1 << 20,
        )
    }

    #[test]
    fn renders_text_and_arithmetic_as_jinja2_does() {
        let vars = [
            ("i", Value::Int(7)),
            ("j", Value::Int(-7)),
            ("u", Value::Text("http://h/f.nc")),
        ];
        assert_eq!(render("plain", &vars).unwrap(), "plain");
        assert_eq!(render("{{u}}", &vars).unwrap(), "http://h/f.nc");
        assert_eq!(render("data/{{ i }}.0", &vars).unwrap(), "data/7.0");
        assert_eq!(render("{{ 1000 + i * 100 }}", &vars).unwrap(), "1700");
        assert_eq!(render("{{ (1000 + i) * 100 }}", &vars).unwrap(), "100700");
        assert_eq!(render("{{ i // 2 }}/{{ j // 2 }}", &vars).unwrap(), "3/-4");
        assert_eq!(render("{{ i % 3 }}/{{ j % 3 }}", &vars).unwrap(), "1/2");
        assert_eq!(render("{{ i % -3 }}", &vars).unwrap(), "-2");
        assert_eq!(render("{{ -i - -3 }}", &vars).unwrap(), "-4");
        assert_eq!(render("{{ 1_000 }}", &vars).unwrap(), "1000");
        assert_eq!(render("a{{i}}b{{i+1}}c", &vars).unwrap(), "a7b8c");
        assert!(Template::parse("x").unwrap().is_literal());
        assert_eq!(
            Template::parse("{{ a * (b + a) }}").unwrap().names(),
            ["a", "b", "a"]
        );
    }

    #[test]
    fn refuses_what_is_not_arithmetic_with_a_clear_error() {
        let vars = [("i", Value::Int(1)), ("u", Value::Text("x"))];
        for (source, says) in [
            ("{% for x in y %}", "statements"),
            ("{# note #}", "comments"),
            ("{{ i", "without its"),
            ("{{ }}", "empty"),
            ("{{ i / 2 }}", "use \"//\""),
            ("{{ i ** 2 }}", "powers"),
            ("{{ u | upper }}", "filters"),
            ("{{ range(3) }}", "calls"),
            ("{{ i if i else 2 }}", "\"if\""),
            ("{{ 'text' }}", "not supported in an expression"),
            ("{{ i.real }}", "not supported in an expression"),
            ("{{ (i + 1 }}", "expected \")\""),
            ("{{ i i }}", "unexpected the name"),
            ("{{ i + }}", "expected a value"),
            ("{{ 99999999999999999999 }}", "too large"),
            ("{{ 9223372036854775807 + 1 }}", "overflow"),
            ("{{ -9223372036854775807 - 1 - 1 }}", "overflow"),
            ("{{ i // 0 }}", "division by zero"),
            ("{{ i % (i - 1) }}", "division by zero"),
            ("{{ u + 1 }}", "is text"),
            ("{{ nope }}", "unknown variable \"nope\""),
            ("{{ nope + 1 }}", "unknown variable"),
        ] {
            let err = render(source, &vars).unwrap_err();
            assert!(err.contains(says), "{source}: {err}");
        }
        // Bounds: depth and length.
        let deep = format!("{{{{ {}1{} }}}}", "(".repeat(40), ")".repeat(40));
        assert!(render(&deep, &vars).unwrap_err().contains("nested deeper"));
        let signs = format!("{{{{ {}1 }}}}", "-".repeat(100));
        assert!(render(&signs, &vars).unwrap_err().contains("nested deeper"));
        let long = format!("{{{{ {} }}}}", "1 + ".repeat(300) + "1");
        assert!(render(&long, &vars).unwrap_err().contains("longer than"));
        // Not deep within the bounds.
        let ok = format!("{{{{ {}1{} }}}}", "(".repeat(20), ")".repeat(20));
        assert_eq!(render(&ok, &vars).unwrap(), "1");
        // Python's floor division at the edge.
        assert!(render("{{ (-9223372036854775807 - 1) // -1 }}", &vars)
            .unwrap_err()
            .contains("overflow"));
    }

    #[test]
    fn rendering_stops_before_it_passes_its_bound() {
        // A 64 KiB text used 40,000 times (issue 46: rendered whole, 2.6 GB, before its length
        // was checked): refused once the next use would pass the bound, nothing copied beyond it.
        let big = "x".repeat(64 * 1024);
        let t = Template::parse(&"{{a}}".repeat(40_000)).unwrap();
        let lookup = |n: &str| Ok((n == "a").then_some(Value::Text(&big)));
        let started = std::time::Instant::now();
        let err = t.render(&lookup, 64 * 1024).unwrap_err();
        assert!(err.contains("more than 65536 characters"), "{err}");
        assert!(started.elapsed() < std::time::Duration::from_millis(50));
        let t = Template::parse(&"{{a}}".repeat(16)).unwrap();
        assert_eq!(
            t.render(&lookup, 16 * 64 * 1024).unwrap().len(),
            16 * 64 * 1024
        );
        assert!(t.render(&lookup, 16 * 64 * 1024 - 1).is_err());
        // At the bound exactly, and numbers counted as the text they make.
        let t = Template::parse("ab{{ 1000 + 1 }}").unwrap();
        assert_eq!(t.render(&lookup, 6).unwrap(), "ab1001");
        assert!(t.render(&lookup, 5).is_err());
    }
}
