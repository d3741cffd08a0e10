//! Nouns that name a person (or a pet) by their relation to the user: "my sister", "our intern",
//! "the kids", "my dog", "my tutor". One list serves every reader that asks whether a noun is
//! someone: such a noun beside a name is a subject, whose facts are their own, never a value or a
//! slot of the user's.

/// Relatives and the people around the user by their relation: named beside the noun, they are a
/// subject, not a value.
const KIN: &[&str] = &[
    "sister",
    "brother",
    "son",
    "daughter",
    "wife",
    "husband",
    "partner",
    "boyfriend",
    "girlfriend",
    "friend",
    "mom",
    "mum",
    "dad",
    "mother",
    "father",
    "kid",
    "child",
    "cousin",
    "aunt",
    "uncle",
    "niece",
    "nephew",
    "grandma",
    "grandpa",
    "grandson",
    "granddaughter",
    "neighbor",
    "neighbour",
    "roommate",
    "flatmate",
    "colleague",
    "coworker",
    "boss",
    "intern",
];

/// People and animals named by a relation many can hold at once, beyond `KIN`: groups, classmates,
/// pets. Each is a subject of their own facts, and a second one named is no change of the first.
const COMPANIONS: &[&str] = &[
    "friends",
    "kids",
    "children",
    "sibling",
    "twin",
    "family",
    "baby",
    "parents",
    "co-worker",
    "classmate",
    "teammate",
    "dog",
    "cat",
    "puppy",
    "kitten",
    "pet",
    "horse",
    "bird",
    "rabbit",
    "hamster",
];

/// Roles a person of the user's is named by: a service or a position someone fills for them.
const ROLES: &[&str] = &["manager", "mentor", "teacher", "tutor", "landlord", "landlady", "doctor", "nanny", "babysitter", "assistant", "teammate", "lead"];

/// Relations one person holds at a time (a boss, an intern): roles like any other.
const ONE_HOLDER: &[&str] = &["boss", "intern"];

/// Whether `w` (lower case) is a relative or a person around the user ("sister", "roommate", "boss").
pub(super) fn is_kin(w: &str) -> bool {
    KIN.contains(&w)
}

/// Whether `w` (lower case) names a person or a pet by any relation: kin, companion or role.
pub(super) fn is_person_noun(w: &str) -> bool {
    KIN.contains(&w) || COMPANIONS.contains(&w) || ROLES.contains(&w)
}

/// Whether `w` names a relation many people hold at once ("friend", "cousin", "dog"): a second one
/// named is another person, not a new holder of the same role.
pub(super) fn held_by_many(w: &str) -> bool {
    (KIN.contains(&w) && !ONE_HOLDER.contains(&w)) || COMPANIONS.contains(&w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_person_noun_is_a_relation_and_one_holder_roles_are_not_held_by_many() {
        for w in ["sister", "roommate", "dog", "kids", "tutor", "intern"] {
            assert!(is_person_noun(w), "{w}");
        }
        for w in ["school", "team", "car", "bank"] {
            assert!(!is_person_noun(w), "{w}");
        }
        assert!(held_by_many("friend") && held_by_many("cat"));
        assert!(!held_by_many("boss") && !held_by_many("intern") && !held_by_many("tutor"));
        assert!(is_kin("boss") && !is_kin("dog"));
    }
}
