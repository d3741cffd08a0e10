// An example history, dated in the past, that exercises every derived state: a value replaced
// (superseded), a value forgotten on request (deleted), a value set by someone who is no longer in
// that role with a stated fallback (cascaded) and without one (uncertain).
export const EXAMPLE_SESSIONS = [
  {
    id: "example-1",
    date: "2024-01-10",
    turns: [
      "We use npm for package management.",
      "My pharmacy is Greenleaf Chemists.",
      "Our team lead is Seokjin Kang.",
      "Seokjin picked Friday as our release day.",
      "Seokjin picked Jest as our test runner.",
      "If the team lead changes, the test runner would be Vitest.",
    ],
  },
  { id: "example-2", date: "2024-03-02", turns: ["We switched from npm to pnpm.", "My favourite editor is Helix."] },
  { id: "example-3", date: "2024-05-20", turns: ["Our team lead is now Jihoon Ryu.", "Please forget my pharmacy."] },
];
