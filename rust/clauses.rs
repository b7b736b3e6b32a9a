//! A clause database checked against one-hot observations with two watched literals.
//!
//! Variables are `family=value` pairs (`tool=grep`, `outcome=failure`). A literal is a variable
//! or its negation; a clause is a disjunction of literals, violated when every literal is false.
//!
//! An observation is *one-hot*: for each observed family its observed value is true and every
//! other value of that family is false; families not observed are unassigned (three-valued).
//! So a negative literal `¬(f=x)` is false only when `f=x` is the observed value, while a
//! positive literal `f=x` is false whenever `f` is observed with any other value.
//!
//! Each clause watches two of its literals. A violated clause has both watches false, so a
//! check only visits the clauses whose *first* watch is false, and rejects most of them by
//! looking at the second watch. Watches are chosen to be rarely false: negative literals first
//! (false for one observed value only), so such a clause is visited only through the watch
//! list of a variable that is true; all-positive clauses are listed under the family of their
//! first watch, with the second watch in another family where possible (both families must be
//! observed for the clause to be visited and survive the filter). A check costs
//! O(number of observed families + clauses visited), not O(all clauses).
//!
//! The first violated clause is chosen deterministically: the oldest added.

use std::fmt;

use crate::hash::FxHashMap;

/// Caller-chosen clause identifier.
pub type ClauseId = i64;

type VarId = u32;
type FamilyId = u32;
type Slot = u32;

/// Marks an observed family whose observed value appears in no clause (all known values false).
const OTHER_VALUE: VarId = VarId::MAX;

/// Why a clause could not be added or an observation read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClauseError {
    Empty(ClauseId),
    DuplicateId(ClauseId),
    /// A family is observed twice in a one-hot observation.
    FamilyObservedTwice(String),
    /// A variable is given both true and false in an assignment.
    ConflictingAssignment(String, String),
    TooManyVariables,
    TooManyClauses,
}

impl fmt::Display for ClauseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty(id) => write!(
                f,
                "clause {id} has no literals; a clause needs at least one"
            ),
            Self::DuplicateId(id) => write!(f, "clause id {id} is already in the database"),
            Self::FamilyObservedTwice(fam) => write!(
                f,
                "family {fam:?} is observed twice; a one-hot observation names each family once"
            ),
            Self::ConflictingAssignment(fam, val) => {
                write!(f, "variable {fam}={val} is assigned both true and false")
            }
            Self::TooManyVariables => write!(f, "too many distinct variables (at most 2**32 - 2)"),
            Self::TooManyClauses => write!(f, "too many clauses (at most 2**32 - 1)"),
        }
    }
}

impl std::error::Error for ClauseError {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Lit {
    var: VarId,
    neg: bool,
}

#[derive(Debug, Clone)]
struct ClauseRec {
    id: ClauseId,
    seq: u64,
    lits: Vec<Lit>,
    /// Second watch (the first is `lits[0]`, placed there at insertion).
    w2: usize,
}

/// The clause database.
#[derive(Debug, Clone, Default)]
pub struct ClauseDb {
    families: FxHashMap<Box<str>, FamilyId>,
    /// Per family: value -> variable.
    values: Vec<FxHashMap<Box<str>, VarId>>,
    var_family: Vec<FamilyId>,
    /// Per variable: its value string and how many literals of live clauses name it; a
    /// variable no clause names any more is forgotten and its id reused, so memory follows the
    /// live clauses, not every value ever seen.
    var_value: Vec<Box<str>>,
    var_refs: Vec<u32>,
    free_vars: Vec<VarId>,
    slots: Vec<Option<ClauseRec>>,
    free: Vec<Slot>,
    by_id: FxHashMap<ClauseId, Slot>,
    /// Clauses whose first watch is `¬var`, by var.
    neg_watch: Vec<Vec<Slot>>,
    /// All-positive clauses by the family of their first watch: (slot, first watch's var).
    pos_watch: Vec<Vec<(Slot, VarId)>>,
    next_seq: u64,
}

/// Truth value of a literal's variable under a check: `None` = unassigned.
trait Assignment {
    fn value(&self, db: &ClauseDb, var: VarId) -> Option<bool>;
}

/// One-hot: observed family -> observed variable (or `OTHER_VALUE`).
struct OneHot(FxHashMap<FamilyId, VarId>);

impl Assignment for OneHot {
    #[inline]
    fn value(&self, db: &ClauseDb, var: VarId) -> Option<bool> {
        self.0
            .get(&db.var_family[var as usize])
            .map(|&obs| obs == var)
    }
}

/// Explicit three-valued assignment.
struct Explicit(FxHashMap<VarId, bool>);

impl Assignment for Explicit {
    #[inline]
    fn value(&self, _db: &ClauseDb, var: VarId) -> Option<bool> {
        self.0.get(&var).copied()
    }
}

impl ClauseDb {
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of clauses.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    pub fn contains(&self, id: ClauseId) -> bool {
        self.by_id.contains_key(&id)
    }

    /// Number of distinct variables named by the clauses.
    pub fn variable_count(&self) -> usize {
        self.var_family.len() - self.free_vars.len()
    }

    fn family_id(&self, family: &str) -> Option<FamilyId> {
        self.families.get(family).copied()
    }

    fn var_id(&self, family: FamilyId, value: &str) -> Option<VarId> {
        self.values[family as usize].get(value).copied()
    }

    fn intern(&mut self, family: &str, value: &str) -> Result<VarId, ClauseError> {
        let fam = if let Some(f) = self.family_id(family) {
            f
        } else {
            let f = self.values.len() as FamilyId;
            self.families.insert(family.into(), f);
            self.values.push(FxHashMap::default());
            self.pos_watch.push(Vec::new());
            f
        };
        if let Some(v) = self.var_id(fam, value) {
            return Ok(v);
        }
        let v = if let Some(v) = self.free_vars.pop() {
            debug_assert!(self.neg_watch[v as usize].is_empty());
            self.var_family[v as usize] = fam;
            self.var_value[v as usize] = value.into();
            v
        } else {
            if self.var_family.len() >= OTHER_VALUE as usize {
                return Err(ClauseError::TooManyVariables);
            }
            self.var_family.push(fam);
            self.var_value.push(value.into());
            self.var_refs.push(0);
            self.neg_watch.push(Vec::new());
            (self.var_family.len() - 1) as VarId
        };
        self.values[fam as usize].insert(value.into(), v);
        Ok(v)
    }

    /// Adds a clause `(family, value, negated)*` under `id`. Fails on an empty clause or a
    /// duplicate id; nothing changes on failure.
    pub fn add<F: AsRef<str>, V: AsRef<str>>(
        &mut self,
        id: ClauseId,
        literals: &[(F, V, bool)],
    ) -> Result<(), ClauseError> {
        if literals.is_empty() {
            return Err(ClauseError::Empty(id));
        }
        if self.by_id.contains_key(&id) {
            return Err(ClauseError::DuplicateId(id));
        }
        if self.free.is_empty() && self.slots.len() >= Slot::MAX as usize {
            return Err(ClauseError::TooManyClauses);
        }
        let mut lits = Vec::with_capacity(literals.len());
        for (f, v, neg) in literals {
            let var = match self.intern(f.as_ref(), v.as_ref()) {
                Ok(var) => var,
                Err(e) => {
                    // Nothing changes on failure: drop the references taken so far.
                    self.release(&lits);
                    return Err(e);
                }
            };
            self.var_refs[var as usize] += 1;
            lits.push(Lit { var, neg: *neg });
        }
        // First watch: a negative literal if any; second: another negative literal, else a
        // literal in another family than the first, else any other literal.
        if let Some(i) = lits.iter().position(|l| l.neg) {
            lits.swap(0, i);
        }
        let fam0 = self.var_family[lits[0].var as usize];
        let w2 = (1..lits.len())
            .find(|&i| lits[0].neg && lits[i].neg)
            .or_else(|| (1..lits.len()).find(|&i| self.var_family[lits[i].var as usize] != fam0))
            .unwrap_or(usize::from(lits.len() > 1));
        let slot = if let Some(s) = self.free.pop() {
            s
        } else {
            self.slots.push(None);
            (self.slots.len() - 1) as Slot
        };
        if lits[0].neg {
            self.neg_watch[lits[0].var as usize].push(slot);
        } else {
            self.pos_watch[fam0 as usize].push((slot, lits[0].var));
        }
        self.slots[slot as usize] = Some(ClauseRec {
            id,
            seq: self.next_seq,
            lits,
            w2,
        });
        self.next_seq += 1;
        self.by_id.insert(id, slot);
        Ok(())
    }

    /// Removes clause `id`; returns whether it existed.
    pub fn remove(&mut self, id: ClauseId) -> bool {
        let Some(slot) = self.by_id.remove(&id) else {
            return false;
        };
        let rec = self.slots[slot as usize].take().expect("live slot");
        let first = rec.lits[0];
        if first.neg {
            let list = &mut self.neg_watch[first.var as usize];
            if let Some(i) = list.iter().position(|&s| s == slot) {
                list.swap_remove(i);
            }
        } else {
            let fam = self.var_family[first.var as usize];
            let list = &mut self.pos_watch[fam as usize];
            if let Some(i) = list.iter().position(|&(s, _)| s == slot) {
                list.swap_remove(i);
            }
        }
        self.free.push(slot);
        self.release(&rec.lits);
        true
    }

    /// Drops one reference to each literal's variable; forgets variables left unreferenced.
    fn release(&mut self, lits: &[Lit]) {
        for l in lits {
            let v = l.var as usize;
            self.var_refs[v] -= 1;
            if self.var_refs[v] == 0 {
                let fam = self.var_family[v] as usize;
                self.values[fam].remove(&self.var_value[v]);
                self.var_value[v] = "".into();
                self.free_vars.push(l.var);
            }
        }
    }

    /// Removes every clause and forgets every variable.
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    #[inline]
    fn lit_false<A: Assignment>(&self, a: &A, l: Lit) -> bool {
        a.value(self, l.var) == Some(l.neg)
    }

    /// Visits a candidate whose first watch is false; keeps it if violated.
    #[inline]
    fn visit<A: Assignment>(&self, a: &A, slot: Slot, out: &mut Vec<(u64, ClauseId)>) {
        let rec = self.slots[slot as usize]
            .as_ref()
            .expect("watched slot is live");
        if !self.lit_false(a, rec.lits[rec.w2]) {
            return;
        }
        if rec.lits.iter().all(|&l| self.lit_false(a, l)) {
            out.push((rec.seq, rec.id));
        }
    }

    fn finish(mut found: Vec<(u64, ClauseId)>) -> Vec<ClauseId> {
        found.sort_unstable();
        found.dedup();
        found.into_iter().map(|(_, id)| id).collect()
    }

    fn one_hot<F: AsRef<str>, V: AsRef<str>>(
        &self,
        observed: &[(F, V)],
    ) -> Result<OneHot, ClauseError> {
        let mut obs: FxHashMap<FamilyId, VarId> = FxHashMap::default();
        let mut seen: Vec<&str> = Vec::with_capacity(observed.len());
        for (f, v) in observed {
            let (f, v) = (f.as_ref(), v.as_ref());
            if seen.contains(&f) {
                return Err(ClauseError::FamilyObservedTwice(f.to_string()));
            }
            seen.push(f);
            if let Some(fam) = self.family_id(f) {
                obs.insert(fam, self.var_id(fam, v).unwrap_or(OTHER_VALUE));
            }
        }
        Ok(OneHot(obs))
    }

    fn violated_one_hot(&self, a: &OneHot) -> Vec<(u64, ClauseId)> {
        let mut found = Vec::new();
        for (&fam, &obs) in &a.0 {
            if obs != OTHER_VALUE {
                for &slot in &self.neg_watch[obs as usize] {
                    self.visit(a, slot, &mut found);
                }
            }
            for &(slot, var) in &self.pos_watch[fam as usize] {
                if var != obs {
                    self.visit(a, slot, &mut found);
                }
            }
        }
        found
    }

    /// The oldest clause violated by the one-hot observation `(family, value)*`, if any.
    pub fn check<F: AsRef<str>, V: AsRef<str>>(
        &self,
        observed: &[(F, V)],
    ) -> Result<Option<ClauseId>, ClauseError> {
        let a = self.one_hot(observed)?;
        let found = self.violated_one_hot(&a);
        Ok(found.into_iter().min().map(|(_, id)| id))
    }

    /// Every clause violated by the one-hot observation, oldest first.
    pub fn check_all<F: AsRef<str>, V: AsRef<str>>(
        &self,
        observed: &[(F, V)],
    ) -> Result<Vec<ClauseId>, ClauseError> {
        let a = self.one_hot(observed)?;
        Ok(Self::finish(self.violated_one_hot(&a)))
    }

    fn explicit<F: AsRef<str>, V: AsRef<str>>(
        &self,
        assignment: &[(F, V, bool)],
    ) -> Result<Explicit, ClauseError> {
        let mut vals: FxHashMap<VarId, bool> = FxHashMap::default();
        // Variables no clause names cannot matter, but a contradiction is still an error.
        let mut unknown: FxHashMap<(&str, &str), bool> = FxHashMap::default();
        for (f, v, b) in assignment {
            let (f, v) = (f.as_ref(), v.as_ref());
            let Some(var) = self.family_id(f).and_then(|fam| self.var_id(fam, v)) else {
                if *unknown.entry((f, v)).or_insert(*b) != *b {
                    return Err(ClauseError::ConflictingAssignment(f.into(), v.into()));
                }
                continue;
            };
            if let Some(&old) = vals.get(&var) {
                if old != *b {
                    return Err(ClauseError::ConflictingAssignment(f.into(), v.into()));
                }
            }
            vals.insert(var, *b);
        }
        Ok(Explicit(vals))
    }

    fn violated_explicit(&self, a: &Explicit) -> Vec<(u64, ClauseId)> {
        let mut found = Vec::new();
        let mut families_with_false: Vec<FamilyId> = Vec::new();
        for (&var, &val) in &a.0 {
            if val {
                for &slot in &self.neg_watch[var as usize] {
                    self.visit(a, slot, &mut found);
                }
            } else {
                let fam = self.var_family[var as usize];
                if !families_with_false.contains(&fam) {
                    families_with_false.push(fam);
                }
            }
        }
        for fam in families_with_false {
            for &(slot, var) in &self.pos_watch[fam as usize] {
                if a.0.get(&var) == Some(&false) {
                    self.visit(a, slot, &mut found);
                }
            }
        }
        found
    }

    /// The oldest clause violated by an explicit three-valued assignment `(family, value,
    /// bool)*` (variables not listed are unassigned; no one-hot completion), if any.
    pub fn check_assignment<F: AsRef<str>, V: AsRef<str>>(
        &self,
        assignment: &[(F, V, bool)],
    ) -> Result<Option<ClauseId>, ClauseError> {
        let a = self.explicit(assignment)?;
        Ok(self
            .violated_explicit(&a)
            .into_iter()
            .min()
            .map(|(_, id)| id))
    }

    /// [`Self::check_assignment`] over `family:value` names (see [`split_name`]), so a caller
    /// holding names need not split them first.
    pub fn check_assignment_names<N: AsRef<str>>(
        &self,
        assignment: &[(N, bool)],
    ) -> Result<Option<ClauseId>, ClauseError> {
        let triples: Vec<(&str, &str, bool)> = assignment
            .iter()
            .map(|(n, b)| {
                let (f, v) = split_name(n.as_ref());
                (f, v, *b)
            })
            .collect();
        self.check_assignment(&triples)
    }

    /// Every clause violated by the explicit assignment, oldest first.
    pub fn check_assignment_all<F: AsRef<str>, V: AsRef<str>>(
        &self,
        assignment: &[(F, V, bool)],
    ) -> Result<Vec<ClauseId>, ClauseError> {
        let a = self.explicit(assignment)?;
        Ok(Self::finish(self.violated_explicit(&a)))
    }

    /// Clause ids, oldest first.
    pub fn ids(&self) -> Vec<ClauseId> {
        let mut v: Vec<(u64, ClauseId)> =
            self.slots.iter().flatten().map(|r| (r.seq, r.id)).collect();
        v.sort_unstable();
        v.into_iter().map(|(_, id)| id).collect()
    }
}

/// `family:value` -> `(family, value)`, split at the first `:`; a name without one is its own
/// family with the empty value (Python's `split_variable`).
pub fn split_name(name: &str) -> (&str, &str) {
    name.split_once(':').unwrap_or((name, ""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(f: &str, v: &str, neg: bool) -> (String, String, bool) {
        (f.into(), v.into(), neg)
    }

    fn obs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|&(f, v)| (f.into(), v.into())).collect()
    }

    #[test]
    fn negative_clause_blocks_the_failed_path() {
        let mut db = ClauseDb::new();
        // ¬(tool=grep) ∨ ¬(prev_tool=grep) ∨ ¬(outcome=failure)
        db.add(
            7,
            &[
                lit("tool", "grep", true),
                lit("prev_tool", "grep", true),
                lit("outcome", "failure", true),
            ],
        )
        .unwrap();
        let o = obs(&[
            ("tool", "grep"),
            ("prev_tool", "grep"),
            ("outcome", "failure"),
        ]);
        assert_eq!(db.check(&o).unwrap(), Some(7));
        let o = obs(&[
            ("tool", "grep"),
            ("prev_tool", "grep"),
            ("outcome", "success"),
        ]);
        assert_eq!(db.check(&o).unwrap(), None);
        let o = obs(&[("tool", "grep"), ("prev_tool", "grep")]);
        assert_eq!(db.check(&o).unwrap(), None, "outcome unassigned");
    }

    #[test]
    fn positive_literals_are_false_for_other_values() {
        let mut db = ClauseDb::new();
        // tool=read ∨ ¬(outcome=failure): after a failure, only `read` is allowed.
        db.add(
            1,
            &[lit("tool", "read", false), lit("outcome", "failure", true)],
        )
        .unwrap();
        // all positive: tool=a ∨ error=none
        db.add(2, &[lit("tool", "a", false), lit("error", "none", false)])
            .unwrap();
        let o = obs(&[("tool", "write"), ("outcome", "failure")]);
        assert_eq!(db.check(&o).unwrap(), Some(1));
        let o = obs(&[("tool", "read"), ("outcome", "failure")]);
        assert_eq!(db.check(&o).unwrap(), None);
        let o = obs(&[("tool", "zzz"), ("error", "timeout")]);
        assert_eq!(
            db.check(&o).unwrap(),
            Some(2),
            "unknown value makes every known value false"
        );
        assert_eq!(db.check_all(&o).unwrap(), vec![2]);
    }

    #[test]
    fn oldest_violated_first_and_remove() {
        let mut db = ClauseDb::new();
        db.add(10, &[lit("tool", "x", true)]).unwrap();
        db.add(5, &[lit("tool", "x", true), lit("outcome", "ok", false)])
            .unwrap();
        let o = obs(&[("tool", "x"), ("outcome", "bad")]);
        assert_eq!(db.check(&o).unwrap(), Some(10));
        assert_eq!(db.check_all(&o).unwrap(), vec![10, 5]);
        assert!(db.remove(10));
        assert!(!db.remove(10));
        assert_eq!(db.check(&o).unwrap(), Some(5));
        assert_eq!(db.len(), 1);
        db.add(10, &[lit("tool", "x", true)]).unwrap();
        assert_eq!(
            db.check_all(&o).unwrap(),
            vec![5, 10],
            "re-added clause is newest"
        );
        assert_eq!(db.ids(), vec![5, 10]);
    }

    #[test]
    fn variables_of_removed_clauses_are_forgotten() {
        let mut db = ClauseDb::new();
        for i in 0..1_000 {
            let v = format!("tool_{i}");
            db.add(i, &[lit("tool", &v, true), lit("outcome", "failure", true)])
                .unwrap();
            if i >= 2 {
                assert!(db.remove(i - 2));
            }
        }
        assert_eq!(db.variable_count(), 3, "two tools and outcome=failure");
        assert!(db.var_family.len() <= 4, "ids are reused");
        let o = obs(&[("tool", "tool_999"), ("outcome", "failure")]);
        assert_eq!(db.check(&o).unwrap(), Some(999));
        let o = obs(&[("tool", "tool_5"), ("outcome", "failure")]);
        assert_eq!(db.check(&o).unwrap(), None);
    }

    #[test]
    fn errors() {
        let mut db = ClauseDb::new();
        let none: [(String, String, bool); 0] = [];
        assert_eq!(db.add(1, &none), Err(ClauseError::Empty(1)));
        db.add(1, &[lit("a", "b", false)]).unwrap();
        assert_eq!(
            db.add(1, &[lit("a", "c", false)]),
            Err(ClauseError::DuplicateId(1))
        );
        assert!(matches!(
            db.check(&obs(&[("a", "b"), ("a", "c")])),
            Err(ClauseError::FamilyObservedTwice(_))
        ));
        assert!(matches!(
            db.check_assignment(&[lit("a", "b", true), lit("a", "b", false)]),
            Err(ClauseError::ConflictingAssignment(..))
        ));
        assert!(matches!(
            db.check_assignment(&[lit("zz", "b", true), lit("zz", "b", false)]),
            Err(ClauseError::ConflictingAssignment(..))
        ));
    }

    #[test]
    fn explicit_assignment_is_not_completed() {
        let mut db = ClauseDb::new();
        db.add(1, &[lit("tool", "a", false), lit("tool", "b", false)])
            .unwrap();
        assert_eq!(
            db.check_assignment(&[lit("tool", "a", false)]).unwrap(),
            None
        );
        assert_eq!(
            db.check_assignment(&[lit("tool", "a", false), lit("tool", "b", false)])
                .unwrap(),
            Some(1)
        );
        assert_eq!(db.check(&obs(&[("tool", "c")])).unwrap(), Some(1));
        db.clear();
        assert!(db.is_empty());
        assert_eq!(db.variable_count(), 0);
        assert_eq!(db.check(&obs(&[("tool", "c")])).unwrap(), None);
    }

    #[test]
    fn names_are_split_at_the_first_colon() {
        assert_eq!(split_name("tool:grep"), ("tool", "grep"));
        assert_eq!(split_name("a:b:c"), ("a", "b:c"));
        assert_eq!(split_name("solo"), ("solo", ""));
        assert_eq!(split_name("tool:"), ("tool", ""));
        let mut db = ClauseDb::new();
        db.add(7, &[lit("tool", "a", true), lit("outcome", "x:y", false)])
            .unwrap();
        assert_eq!(
            db.check_assignment_names(&[("tool:a", true), ("outcome:x:y", false)])
                .unwrap(),
            Some(7)
        );
        assert_eq!(
            db.check_assignment_names(&[("tool:a", true)]).unwrap(),
            None
        );
        // "solo" and "solo:" name the same variable, so opposite values contradict.
        assert!(matches!(
            db.check_assignment_names(&[("solo", true), ("solo:", false)]),
            Err(ClauseError::ConflictingAssignment(..))
        ));
    }
}
