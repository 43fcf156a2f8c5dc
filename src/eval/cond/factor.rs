//! A sum of products written as a shorter formula with the same meaning.
//!
//! The rows of a trace over a real tree are sums of many products that repeat the same tests:
//! `(a and x and p) or (a and y and p) or (b and x and p) or (b and y and p)` reads
//! `p and (a or b) and (x or y)`. Only algebraic rewrites are used (`k and f or k and g` is
//! `k and (f or g)`), so the formula holds exactly where the products do, whatever the atoms
//! mean.

/// A literal: an atom and whether it holds.
pub type Lit = (usize, bool);

/// A formula over literals.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Formula {
    Lit(Lit),
    /// Every part holds (at least two parts).
    And(Vec<Formula>),
    /// One part holds (at least two parts).
    Or(Vec<Formula>),
}

/// `products` (a disjunction of conjunctions, none empty) as a factored formula.
pub fn factor(products: &[Vec<Lit>]) -> Formula {
    let mut terms: Vec<Vec<Formula>> =
        products.iter().map(|lits| lits.iter().map(|&lit| Formula::Lit(lit)).collect()).collect();
    for term in &mut terms {
        term.sort();
        term.dedup();
    }
    merge_differing_in_one(&mut terms);
    build(terms)
}

/// Two terms that differ in one factor only become one: `k and f`, `k and g` is
/// `k and (f or g)`. Repeated until no two terms do.
fn merge_differing_in_one(terms: &mut Vec<Vec<Formula>>) {
    'again: loop {
        for i in 0..terms.len() {
            for j in i + 1..terms.len() {
                let (a, b) = (&terms[i], &terms[j]);
                if a.len() != b.len() {
                    continue;
                }
                let only_a: Vec<&Formula> = a.iter().filter(|f| !b.contains(f)).collect();
                let only_b: Vec<&Formula> = b.iter().filter(|f| !a.contains(f)).collect();
                if only_a.len() != 1 || only_b.len() != 1 {
                    continue;
                }
                let merged = or_of(vec![only_a[0].clone(), only_b[0].clone()]);
                let mut term: Vec<Formula> = a.iter().filter(|f| *f != only_a[0]).cloned().collect();
                term.push(merged);
                term.sort();
                terms.remove(j);
                terms[i] = term;
                continue 'again;
            }
        }
        return;
    }
}

/// The disjunction of `terms` (each a non-empty conjunction), with the factors they share said
/// once.
fn build(mut terms: Vec<Vec<Formula>>) -> Formula {
    terms.sort();
    terms.dedup();
    if terms.len() == 1 {
        return and_of(terms.pop().unwrap_or_default());
    }
    // Factors every term has: `k and (f or g)`.
    let common: Vec<Formula> = terms[0].iter().filter(|f| terms[1..].iter().all(|t| t.contains(f))).cloned().collect();
    if !common.is_empty() {
        let rest: Vec<Vec<Formula>> =
            terms.iter().map(|t| t.iter().filter(|f| !common.contains(f)).cloned().collect()).collect();
        let mut parts = common;
        // A term left with nothing holds whenever the common factors do.
        if !rest.iter().any(Vec::is_empty) {
            parts.push(build(rest));
        }
        return and_of(parts);
    }
    // The factor most terms have (the first in order among equals) is said once for them.
    let mut best: Option<(&Formula, usize)> = None;
    for factor in terms.iter().flatten() {
        let count = terms.iter().filter(|t| t.contains(factor)).count();
        let better = match best {
            None => true,
            Some((b, n)) => count > n || (count == n && factor < b),
        };
        if better {
            best = Some((factor, count));
        }
    }
    let Some(factor) = best.filter(|&(_, n)| n >= 2).map(|(f, _)| f.clone()) else {
        return or_of(terms.into_iter().map(and_of).collect());
    };
    let (with, without): (Vec<Vec<Formula>>, Vec<Vec<Formula>>) = terms.into_iter().partition(|t| t.contains(&factor));
    let with: Vec<Vec<Formula>> = with.into_iter().map(|t| t.into_iter().filter(|f| *f != factor).collect()).collect();
    // A term that was the factor alone makes the others redundant.
    let mut parts = vec![if with.iter().any(Vec::is_empty) { factor } else { and_of(vec![factor, build(with)]) }];
    if !without.is_empty() {
        parts.push(build(without));
    }
    or_of(parts)
}

fn and_of(parts: Vec<Formula>) -> Formula {
    let mut flat = Vec::new();
    for part in parts {
        match part {
            Formula::And(inner) => flat.extend(inner),
            other => flat.push(other),
        }
    }
    if flat.len() == 1 { flat.pop().expect("one part") } else { Formula::And(flat) }
}

fn or_of(parts: Vec<Formula>) -> Formula {
    // In the order given (the products' order), each part once.
    let mut flat: Vec<Formula> = Vec::new();
    for part in parts {
        let inner = match part {
            Formula::Or(inner) => inner,
            other => vec![other],
        };
        for part in inner {
            if !flat.contains(&part) {
                flat.push(part);
            }
        }
    }
    if flat.len() == 1 { flat.pop().expect("one part") } else { Formula::Or(flat) }
}

/// How a literal is written: its text, and for an equality of a value with a constant, the
/// value's id and the two sides' texts (so that several of one value read `x in ("a", "b")`).
pub struct Spelling {
    pub text: String,
    pub equality: Option<(u32, String, String)>,
}

/// The text of `formula`, each literal spelled by `spell`: `and` binds tighter than `or`, and
/// a disjunction inside a conjunction (or a conjunction inside a disjunction) is
/// parenthesized so that nobody has to remember which. Equalities of one value said together
/// are said once: `x == "a" or x == "b"` reads `x in ("a", "b")`, `not (x == "a") and not (x
/// == "b")` reads `x not in ("a", "b")`.
pub fn render(formula: &Formula, spell: &dyn Fn(Lit) -> Spelling) -> String {
    render_terms(formula, spell).join(match formula {
        Formula::And(_) => " and ",
        _ => " or ",
    })
}

/// The texts `formula` joins (one for a literal).
fn render_terms(formula: &Formula, spell: &dyn Fn(Lit) -> Spelling) -> Vec<String> {
    let (parts, grouped_polarity, membership) = match formula {
        Formula::Lit(lit) => return vec![spell(*lit).text],
        Formula::And(parts) => (parts, false, " not in "),
        Formula::Or(parts) => (parts, true, " in "),
    };
    let spelled: Vec<Option<Spelling>> =
        parts.iter().map(|part| if let Formula::Lit(lit) = part { Some(spell(*lit)) } else { None }).collect();
    // The value whose equality a literal of the grouped polarity tests, if any.
    let value_of = |i: usize| match (&parts[i], &spelled[i]) {
        (Formula::Lit((_, holds)), Some(Spelling { equality: Some((value, _, _)), .. }))
            if *holds == grouped_polarity =>
        {
            Some(*value)
        }
        _ => None,
    };
    let mut texts: Vec<String> = Vec::new();
    let mut done = vec![false; parts.len()];
    for i in 0..parts.len() {
        if done[i] {
            continue;
        }
        let members: Vec<usize> = match value_of(i) {
            Some(value) => (i..parts.len()).filter(|&j| !done[j] && value_of(j) == Some(value)).collect(),
            None => vec![i],
        };
        if members.len() >= 2 {
            let side = |j: usize| spelled[j].as_ref().and_then(|s| s.equality.as_ref()).expect("an equality");
            let constants: Vec<&str> = members.iter().map(|&j| side(j).2.as_str()).collect();
            texts.push(format!("{}{membership}({})", side(i).1, constants.join(", ")));
            for j in members {
                done[j] = true;
            }
            continue;
        }
        done[i] = true;
        texts.push(match &spelled[i] {
            Some(spelling) => spelling.text.clone(),
            None => {
                let inner = render_terms(&parts[i], spell);
                let joiner = if matches!(parts[i], Formula::And(_)) { " and " } else { " or " };
                if inner.len() == 1 { inner.join("") } else { format!("({})", inner.join(joiner)) }
            }
        });
    }
    texts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(products: &[&[Lit]]) -> String {
        let products: Vec<Vec<Lit>> = products.iter().map(|p| p.to_vec()).collect();
        let names = ["a", "b", "c", "d", "e", "f", "g"];
        render(&factor(&products), &|(atom, holds)| Spelling {
            text: if holds { names[atom].to_string() } else { format!("not {}", names[atom]) },
            equality: None,
        })
    }

    /// Every configuration of `atoms` atoms where `products` holds.
    fn truth(products: &[Vec<Lit>], atoms: usize) -> Vec<bool> {
        (0..1u32 << atoms)
            .map(|bits| products.iter().any(|p| p.iter().all(|&(a, h)| ((bits >> a) & 1 == 1) == h)))
            .collect()
    }

    fn eval(formula: &Formula, bits: u32) -> bool {
        match formula {
            Formula::Lit((a, h)) => ((bits >> a) & 1 == 1) == *h,
            Formula::And(parts) => parts.iter().all(|p| eval(p, bits)),
            Formula::Or(parts) => parts.iter().any(|p| eval(p, bits)),
        }
    }

    #[test]
    fn a_product_of_sums_is_written_as_one() {
        // (a or b) and (c or d), all four products spelled out, and a test they share.
        let t = |x, y| [(x, true), (y, true), (4, true)];
        assert_eq!(text(&[&t(0, 2), &t(0, 3), &t(1, 2), &t(1, 3)]), "e and (a or b) and (c or d)");
    }

    #[test]
    fn a_shared_test_is_said_once_for_the_products_that_have_it() {
        assert_eq!(
            text(&[&[(0, true), (1, true)], &[(0, true), (2, false)], &[(3, true)]]),
            "(a and (b or not c)) or d"
        );
        assert_eq!(text(&[&[(0, true)], &[(1, true)]]), "a or b");
        assert_eq!(text(&[&[(0, true), (1, false)]]), "a and not b");
    }

    #[test]
    fn equalities_of_one_value_said_together_are_said_once() {
        // Atoms 0..3 are `x == "a"`, `x == "b"`, `x == "c"`; atom 3 is `y`.
        let spell = |(atom, holds): Lit| {
            let equality = (atom < 3).then(|| (7, "x".to_string(), format!("\"{}\"", ["a", "b", "c"][atom])));
            let text = match &equality {
                Some((_, lhs, rhs)) => format!("{lhs} == {rhs}"),
                None => "y".to_string(),
            };
            Spelling { text: if holds { text } else { format!("not ({text})") }, equality }
        };
        let text = |products: &[&[Lit]]| {
            let products: Vec<Vec<Lit>> = products.iter().map(|p| p.to_vec()).collect();
            render(&factor(&products), &spell)
        };
        assert_eq!(text(&[&[(0, true), (3, true)], &[(1, true), (3, true)]]), "y and x in (\"a\", \"b\")");
        assert_eq!(text(&[&[(0, false), (2, false), (3, true)]]), "x not in (\"a\", \"c\") and y");
        // One of each polarity is no group.
        assert_eq!(text(&[&[(0, false), (1, true)]]), "not (x == \"a\") and x == \"b\"");
    }

    #[test]
    fn the_formula_holds_exactly_where_the_products_do() {
        // Every sum of up to four products over four atoms drawn from a fixed pseudo-random
        // sequence: the factored formula must agree everywhere.
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..2000 {
            let count = 1 + (next() % 5) as usize;
            let products: Vec<Vec<Lit>> = (0..count)
                .map(|_| {
                    let mut lits: Vec<Lit> = Vec::new();
                    for atom in 0..4 {
                        let bits = next();
                        if bits % 2 == 0 {
                            lits.push((atom, bits % 4 == 0));
                        }
                    }
                    if lits.is_empty() {
                        lits.push(((next() % 4) as usize, true));
                    }
                    lits
                })
                .collect();
            let formula = factor(&products);
            let expected = truth(&products, 4);
            for (bits, want) in expected.iter().enumerate() {
                assert_eq!(eval(&formula, bits as u32), *want, "{products:?} as {formula:?}");
            }
        }
    }
}
