//! gettext's `Plural-Forms` formulas: the usual one of each language, a parser and evaluator
//! of the C expressions files state, and the CLDR category each index stands for (worked out
//! by evaluating the formula for the counts 0 to 1000 against ICU's categories).

use crate::domain::model::PluralCategory;
use crate::domain::names::LanguageCode;

/// A `Plural-Forms` formula: its number of forms and its expression, and the CLDR category
/// of each index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluralRule {
    pub nplurals: usize,
    pub expression: String,
    /// Per index, the category of the counts the formula sends there (`None`: no count
    /// from 0 to 1,000 goes there).
    pub categories: Vec<Option<PluralCategory>>,
}

impl PluralRule {
    /// The header's value: `nplurals=3; plural=(...);`.
    pub fn header(&self) -> String {
        format!("nplurals={}; plural={};", self.nplurals, self.expression)
    }

    /// The rule of `language`: gettext's usual formula for it, its indexes mapped to the
    /// language's CLDR categories.
    pub fn of(language: &LanguageCode) -> Self {
        let (nplurals, expression) = usual_formula(language);
        Self::parse_parts(nplurals, expression, language).expect("the usual formulas parse")
    }

    /// Reads a header's `Plural-Forms` value for a file of `language`.
    pub fn parse(value: &str, language: &LanguageCode) -> Result<Self, String> {
        let mut nplurals = None;
        let mut expression = None;
        for part in value.split(';') {
            let part = part.trim();
            if let Some(number) = part.strip_prefix("nplurals=") {
                nplurals = number.trim().parse::<usize>().ok();
            } else if let Some(formula) = part.strip_prefix("plural=") {
                expression = Some(formula.trim());
            }
        }
        match (nplurals, expression) {
            (Some(nplurals), Some(expression)) if (1..=6).contains(&nplurals) => {
                Self::parse_parts(nplurals, expression, language)
            }
            _ => Err(format!(
                "the Plural-Forms header {value:?} is not `nplurals=N; plural=EXPRESSION;`"
            )),
        }
    }

    fn parse_parts(nplurals: usize, expression: &str, language: &LanguageCode) -> Result<Self, String> {
        let formula = Formula::parse(expression)?;
        let rules = cldr_rules(language);
        // Per index, how many of the counts it takes fall in each category, in the order
        // first seen: an index stands for the category most of its counts have (Irish files
        // write `n<7 ? 2` for 0 and 3 to 6, which is `few`, not the `other` of 0).
        let mut seen: Vec<Vec<(PluralCategory, usize)>> = vec![Vec::new(); nplurals];
        for n in 0..=1000u64 {
            let index = formula.eval(n) as usize;
            if index < nplurals {
                let category = rules
                    .as_ref()
                    .map_or(PluralCategory::Other, |rules| category_of(rules, n));
                match seen[index].iter_mut().find(|(known, _)| *known == category) {
                    Some((_, count)) => *count += 1,
                    None => seen[index].push((category, 1)),
                }
            }
        }
        let categories = seen
            .iter()
            .map(|counts| {
                // The most counts; of equal counts, the first seen.
                let most = counts.iter().map(|(_, count)| *count).max()?;
                counts
                    .iter()
                    .find(|(_, count)| *count == most)
                    .map(|(category, _)| *category)
            })
            .collect();
        Ok(Self {
            nplurals,
            expression: expression.to_owned(),
            categories,
        })
    }
}

fn cldr_rules(language: &LanguageCode) -> Option<icu_plurals::PluralRules> {
    // Plural rules follow the language (and region: `pt-PT` is not `pt`), never the script:
    // CLDR's parent of `sr-Latn` is the root locale, whose only category is `other`.
    let code = language
        .subtags()
        .filter(|subtag| subtag.len() != 4 || subtag.bytes().any(|byte| byte.is_ascii_digit()))
        .collect::<Vec<_>>()
        .join("-");
    let rules_of = |code: &str| {
        let locale = code.parse::<icu_locale_core::Locale>().ok()?;
        icu_plurals::PluralRules::try_new_cardinal((&locale).into()).ok()
    };
    let primary = code.split('-').next().unwrap_or_default().to_owned();
    rules_of(&code).or_else(|| rules_of(&primary))
}

fn category_of(rules: &icu_plurals::PluralRules, n: u64) -> PluralCategory {
    use icu_plurals::PluralCategory as Icu;
    match rules.category_for(n) {
        Icu::Zero => PluralCategory::Zero,
        Icu::One => PluralCategory::One,
        Icu::Two => PluralCategory::Two,
        Icu::Few => PluralCategory::Few,
        Icu::Many => PluralCategory::Many,
        Icu::Other => PluralCategory::Other,
    }
}

/// gettext's usual `Plural-Forms` of a language (those of GNU gettext's manual and the
/// Unicode CLDR's gettext charts); a language not listed gets one form when CLDR gives it only
/// `other`, else English's two.
fn usual_formula(language: &LanguageCode) -> (usize, &'static str) {
    let code = language.as_str();
    let primary = code.split(['-', '_']).next().unwrap_or_default().to_ascii_lowercase();
    const SLAVIC: &str = "(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<12 || n%100>14) ? 1 : 2)";
    match primary.as_str() {
        "ja" | "ko" | "zh" | "vi" | "th" | "id" | "ms" | "lo" | "my" | "km" | "jv" | "yo" => (1, "0"),
        "fr" | "hi" | "fa" | "bn" | "am" | "ln" | "ti" | "wa" | "kab" | "hy" => (2, "(n > 1)"),
        "pt" if !code.eq_ignore_ascii_case("pt-PT") && !code.eq_ignore_ascii_case("pt_PT") => (2, "(n > 1)"),
        "ru" | "uk" | "be" | "sr" | "hr" | "bs" => (3, SLAVIC),
        "pl" => (3, "(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<12 || n%100>14) ? 1 : 2)"),
        "cs" | "sk" => (3, "(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2"),
        "lt" => (
            3,
            "(n%10==1 && n%100!=11 ? 0 : n%10>=2 && (n%100<10 || n%100>=20) ? 1 : 2)",
        ),
        "lv" => (
            3,
            "(n%10==0 || (n%100>=11 && n%100<=19) ? 0 : n%10==1 && n%100!=11 ? 1 : 2)",
        ),
        "ro" => (3, "(n==1 ? 0 : (n==0 || (n%100>0 && n%100<20)) ? 1 : 2)"),
        "sl" => (4, "(n%100==1 ? 0 : n%100==2 ? 1 : n%100==3 || n%100==4 ? 2 : 3)"),
        "he" | "iw" => (3, "(n==1 ? 0 : n==2 ? 1 : 2)"),
        "ga" => (5, "(n==1 ? 0 : n==2 ? 1 : n>=3 && n<=6 ? 2 : n>=7 && n<=10 ? 3 : 4)"),
        "gd" => (
            4,
            "(n==1 || n==11) ? 0 : (n==2 || n==12) ? 1 : (n > 2 && n < 20) ? 2 : 3",
        ),
        "dsb" | "hsb" => (4, "(n%100==1 ? 0 : n%100==2 ? 1 : n%100==3 || n%100==4 ? 2 : 3)"),
        "cy" => (6, "(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n==3 ? 3 : n==6 ? 4 : 5)"),
        "ar" => (
            6,
            "(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5)",
        ),
        _ => match cldr_rules(language) {
            Some(rules) if rules.categories().count() == 1 => (1, "0"),
            _ => (2, "(n != 1)"),
        },
    }
}

/// A C expression of `n`, as `Plural-Forms` writes it.
#[derive(Debug)]
enum Formula {
    N,
    Number(u64),
    Not(Box<Formula>),
    Binary(Box<Formula>, Op, Box<Formula>),
    Choice(Box<Formula>, Box<Formula>, Box<Formula>),
}

#[derive(Debug, Clone, Copy)]
enum Op {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl Formula {
    fn parse(text: &str) -> Result<Self, String> {
        let tokens = tokenize(text)?;
        let mut parser = Parser { tokens, at: 0 };
        let formula = parser.choice()?;
        if parser.at != parser.tokens.len() {
            return Err(format!("the plural formula {text:?} has more after its end"));
        }
        Ok(formula)
    }

    fn eval(&self, n: u64) -> u64 {
        match self {
            Formula::N => n,
            Formula::Number(number) => *number,
            Formula::Not(inner) => u64::from(inner.eval(n) == 0),
            Formula::Choice(test, yes, no) => {
                if test.eval(n) != 0 {
                    yes.eval(n)
                } else {
                    no.eval(n)
                }
            }
            Formula::Binary(left, op, right) => {
                let (a, b) = (left.eval(n), right.eval(n));
                match op {
                    Op::Or => u64::from(a != 0 || b != 0),
                    Op::And => u64::from(a != 0 && b != 0),
                    Op::Eq => u64::from(a == b),
                    Op::Ne => u64::from(a != b),
                    Op::Lt => u64::from(a < b),
                    Op::Le => u64::from(a <= b),
                    Op::Gt => u64::from(a > b),
                    Op::Ge => u64::from(a >= b),
                    Op::Add => a.wrapping_add(b),
                    Op::Sub => a.wrapping_sub(b),
                    Op::Mul => a.wrapping_mul(b),
                    Op::Div => a.checked_div(b).unwrap_or(0),
                    Op::Rem => a.checked_rem(b).unwrap_or(0),
                }
            }
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<String>, String> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        if c.is_whitespace() {
            at += 1;
        } else if c.is_ascii_digit() {
            let start = at;
            while at < chars.len() && chars[at].is_ascii_digit() {
                at += 1;
            }
            tokens.push(chars[start..at].iter().collect());
        } else {
            let two: String = chars[at..(at + 2).min(chars.len())].iter().collect();
            if ["||", "&&", "==", "!=", "<=", ">="].contains(&two.as_str()) {
                tokens.push(two);
                at += 2;
            } else if "n()?:<>!+-*/%".contains(c) {
                tokens.push(c.to_string());
                at += 1;
            } else {
                return Err(format!("the plural formula {text:?} has {c:?}"));
            }
        }
    }
    Ok(tokens)
}

struct Parser {
    tokens: Vec<String>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.at).map(String::as_str)
    }

    fn take(&mut self, token: &str) -> bool {
        if self.peek() == Some(token) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn choice(&mut self) -> Result<Formula, String> {
        let test = self.binary(0)?;
        if !self.take("?") {
            return Ok(test);
        }
        let yes = self.choice()?;
        if !self.take(":") {
            return Err("a `?` without its `:` in the plural formula".into());
        }
        let no = self.choice()?;
        Ok(Formula::Choice(Box::new(test), Box::new(yes), Box::new(no)))
    }

    /// Binary operators by C's precedence, lowest first.
    fn binary(&mut self, level: usize) -> Result<Formula, String> {
        const LEVELS: [&[(&str, Op)]; 6] = [
            &[("||", Op::Or)],
            &[("&&", Op::And)],
            &[("==", Op::Eq), ("!=", Op::Ne)],
            &[("<", Op::Lt), ("<=", Op::Le), (">", Op::Gt), (">=", Op::Ge)],
            &[("+", Op::Add), ("-", Op::Sub)],
            &[("*", Op::Mul), ("/", Op::Div), ("%", Op::Rem)],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        loop {
            let Some(op) = LEVELS[level]
                .iter()
                .find(|(token, _)| self.peek() == Some(*token))
                .map(|(_, op)| *op)
            else {
                return Ok(left);
            };
            self.at += 1;
            let right = self.binary(level + 1)?;
            left = Formula::Binary(Box::new(left), op, Box::new(right));
        }
    }

    fn unary(&mut self) -> Result<Formula, String> {
        if self.take("!") {
            return Ok(Formula::Not(Box::new(self.unary()?)));
        }
        if self.take("(") {
            let inner = self.choice()?;
            if !self.take(")") {
                return Err("a `(` without its `)` in the plural formula".into());
            }
            return Ok(inner);
        }
        if self.take("n") {
            return Ok(Formula::N);
        }
        match self.peek().and_then(|token| token.parse::<u64>().ok()) {
            Some(number) => {
                self.at += 1;
                Ok(Formula::Number(number))
            }
            None => Err(format!(
                "the plural formula has {:?} where a value belongs",
                self.peek()
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(raw: &str) -> LanguageCode {
        LanguageCode::parse(raw).unwrap()
    }

    #[test]
    fn formulas_map_their_indexes_to_cldr_categories() {
        let polish = PluralRule::of(&code("pl"));
        use PluralCategory::*;
        assert_eq!(polish.categories, [Some(One), Some(Few), Some(Many)]);
        let arabic = PluralRule::of(&code("ar"));
        assert_eq!(
            arabic.categories,
            [Some(Zero), Some(One), Some(Two), Some(Few), Some(Many), Some(Other)]
        );
        assert_eq!(PluralRule::of(&code("ja")).categories, [Some(Other)]);
        // GNOME Calculator's ga.po: index 2 takes 0 (`other`) and 3 to 6 (`few`).
        let irish = PluralRule::parse(
            "nplurals=5; plural=n==1 ? 0 : n==2 ? 1 : n<7 ? 2 : n<11 ? 3 : 4;",
            &code("ga"),
        )
        .unwrap();
        assert_eq!(
            irish.categories,
            [Some(One), Some(Two), Some(Few), Some(Many), Some(Other)]
        );
        // Scottish Gaelic's four forms (GNOME Calculator's gd.po), not English's two.
        assert_eq!(
            PluralRule::of(&code("gd")).categories,
            [Some(One), Some(Two), Some(Few), Some(Other)]
        );
        assert_eq!(
            PluralRule::of(&code("hsb")).categories,
            [Some(One), Some(Two), Some(Few), Some(Other)]
        );
        assert_eq!(PluralRule::of(&code("fr")).categories, [Some(One), Some(Other)]);
        // A file's own formula, in another order than the usual one.
        let reversed = PluralRule::parse("nplurals=2; plural=(n == 1) ? 1 : 0;", &code("en")).unwrap();
        assert_eq!(reversed.categories, [Some(Other), Some(One)]);
        assert!(PluralRule::parse("nplurals=2; plural=n ? ;", &code("en")).is_err());
    }
}
