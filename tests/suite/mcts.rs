//! MCTS: finds a win in one with no network, proves it and stops there, and backs up
//! one value per player (max^n) in a three-player toy game.

use contagion::games::infexion::Board;
use contagion::games::{Action, EncodingShape, Game, GameError, Outcome};
use contagion::rng::Rng;
use contagion::search::batch::search_batched;
use contagion::search::mcts::{
    Evaluation, Evaluator, GumbelParams, MctsParams, Tree, UniformEvaluator,
};

fn search<G: Game>(state: &G, sims: u32, leaves: u32) -> Tree<G> {
    let mut tree = Tree::new(state.clone());
    let params = MctsParams {
        leaves_per_tree: leaves,
        ..MctsParams::default()
    };
    search_batched(
        &mut [&mut tree],
        sims,
        &params,
        &mut UniformEvaluator,
        |_, _| {},
        |_| false,
    );
    tree
}

/// Red's 1-stack at (3,3) next to Blue's only stack at (3,4): SPREAD east wins at once.
const WIN_IN_ONE: &str = "7/7/7/3r1b12/7/7/7 r 10";

#[test]
fn uniform_mcts_finds_the_immediate_winning_spread() {
    let board = Board::from_notation(WIN_IN_ONE).unwrap();
    let mut legal = Vec::new();
    board.legal_actions(&mut legal);
    assert!(legal.len() > 40, "many moves to choose from");
    for leaves in [1, 8] {
        let tree = search(&board, 400, leaves);
        let best = tree.choose(false, &mut Rng::new(1)).unwrap();
        assert_eq!(
            board.action_to_string(best),
            "SPREAD(3,3,0,1)",
            "leaves {leaves}"
        );
        // Once a simulation reaches it the root is proven: its value is exact and the
        // search stops spending simulations.
        assert_eq!(
            tree.root_values()[0],
            1.0,
            "the root is a proven win for Red"
        );
        assert!(
            tree.root_visits() < 400,
            "{} simulations",
            tree.root_visits()
        );
    }
}

#[test]
fn tree_reuse_keeps_the_subtree_and_counts() {
    let board = Board::from_notation(WIN_IN_ONE).unwrap();
    let mut tree = search(&board, 200, 1);
    let spawn = board.parse_action("SPAWN(0,0)").unwrap();
    let child_visits = tree
        .root_children()
        .into_iter()
        .find(|c| c.0 == spawn)
        .unwrap()
        .1;
    tree.advance(spawn);
    assert_eq!(tree.root_visits(), child_visits);
    let mut after = board;
    after.apply(spawn).unwrap();
    assert_eq!(tree.root(), &after);
}

/// The most visited root child: `(action, visits)`.
fn most_visited<G: Game>(tree: &Tree<G>) -> (Action, u32) {
    let best = tree
        .root_children()
        .into_iter()
        .max_by_key(|c| c.1)
        .unwrap();
    (best.0, best.1)
}

#[test]
fn rerooting_finds_one_move_down_and_two_through_the_move_played() {
    let board = Board::from_notation("7/7/2r14/7/4b12/7/7 r 10").unwrap();
    let tree = search(&board, 3000, 1);
    let (played, _) = most_visited(&tree);
    // Our move, then the reply the search expected: that subtree carries over.
    let mut below = tree.clone();
    below.advance(played);
    let (reply, reply_visits) = most_visited(&below);
    assert!(reply_visits > 1, "the reply was searched");
    let mut two = board;
    two.apply(played).unwrap();
    two.apply(reply).unwrap();
    let mut t = tree.clone();
    t.reroot(&two, Some(played));
    assert_eq!((t.root(), t.root_visits()), (&two, reply_visits));
    // One move down needs no hint.
    let mut one = board;
    one.apply(played).unwrap();
    let mut t = tree.clone();
    t.reroot(&one, None);
    assert_eq!((t.root(), t.root_visits()), (&one, below.root_visits()));
    // Two moves down through a move that was not played: a fresh tree.
    let mut t = tree.clone();
    t.reroot(&two, None);
    assert_eq!((t.root(), t.root_visits()), (&two, 0));
}

/// A three-player game two plies deep with arbitrary result vectors. Player 0 picks A or
/// B, then player 1 picks 0 or 1. Max^n (each player maximises their own value):
/// after A player 1 prefers A0 (0 > -0.5), worth +1 to player 0; after B player 0
/// gets 0.2 either way, so player 0 should play A. A two-player negation (player 1
/// minimising player 0) would pick A1 after A and make B look better.
#[derive(Debug, Clone, PartialEq)]
struct Toy {
    moves: Vec<Action>,
}

const RESULTS: [[f32; 3]; 4] = [
    [1.0, 0.0, -1.0],  // A0
    [-1.0, -0.5, 1.0], // A1
    [0.2, 0.2, -0.4],  // B0
    [0.2, 0.0, -0.2],  // B1
];

impl Game for Toy {
    type Fast = Self;

    fn name(&self) -> &'static str {
        "toy"
    }
    fn num_players(&self) -> usize {
        3
    }
    fn to_move(&self) -> usize {
        self.moves.len()
    }
    fn player_name(&self, p: usize) -> &'static str {
        ["P0", "P1", "P2"][p]
    }
    fn action_space(&self) -> usize {
        2
    }
    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.moves.len() < 2 {
            out.extend([0, 1]);
        }
    }
    fn is_legal(&self, a: Action) -> bool {
        a < 2 && self.moves.len() < 2
    }
    fn apply(&mut self, a: Action) -> Result<(), GameError> {
        if !self.is_legal(a) {
            return Err(GameError::IllegalMove(a.to_string()));
        }
        self.moves.push(a);
        Ok(())
    }
    fn outcome(&self) -> Option<Outcome> {
        (self.moves.len() == 2)
            .then(|| Outcome(RESULTS[(self.moves[0] * 2 + self.moves[1]) as usize]))
    }
    fn ply(&self) -> u32 {
        self.moves.len() as u32
    }
    fn max_plies(&self) -> u32 {
        2
    }
    fn hash(&self) -> u64 {
        self.moves.iter().fold(1, |h, &m| h * 3 + m as u64)
    }
    fn encoding_shape(&self) -> EncodingShape {
        EncodingShape {
            planes: 1,
            height: 1,
            width: 2,
        }
    }
    fn encode(&self, out: &mut [f32]) {
        out.fill(0.0);
    }
    fn plane_meanings(&self) -> Vec<String> {
        vec!["zeros".into()]
    }
    fn policy_planes(&self) -> usize {
        1
    }
    fn policy_index(&self, a: Action) -> usize {
        a as usize
    }
    fn num_symmetries(&self) -> usize {
        1
    }
    fn transform(&self, _: usize) -> Self {
        self.clone()
    }
    fn transform_action(&self, a: Action, _: usize) -> Action {
        a
    }
    fn to_notation(&self) -> String {
        format!("{:?}", self.moves)
    }
    fn parse_position(&self, _: &str) -> Result<Self, GameError> {
        Ok(Toy { moves: vec![] })
    }
    fn action_to_string(&self, a: Action) -> String {
        a.to_string()
    }
    fn parse_action(&self, t: &str) -> Result<Action, GameError> {
        t.parse().map_err(|_| GameError::parse(t, "a number"))
    }
    fn render_with(&self, _: &dyn Fn(usize, &str) -> String) -> String {
        self.to_notation()
    }
}

#[test]
fn three_player_backup_is_max_n() {
    let tree = search(&Toy { moves: vec![] }, 2000, 1);
    assert_eq!(
        tree.choose(false, &mut Rng::new(0)),
        Some(0),
        "player 0 plays A"
    );
    let v = tree.root_values();
    // The root's values converge on A0's result vector.
    assert!((v[0] - 1.0).abs() < 0.15, "{v:?}");
    assert!(v[1].abs() < 0.15, "{v:?}");
    assert!((v[2] + 1.0).abs() < 0.15, "{v:?}");
    // Below A, player 1 (to move) prefers A0: its own value 0 beats -0.5.
    let mut below = tree.clone();
    below.advance(0);
    assert_eq!(below.choose(false, &mut Rng::new(0)), Some(0));
}

/// Three Chexers pieces shuffled back and forth until Blue's next move would bring the
/// start round a fourth time: a draw by the rules, valued `draw_value` in the tree.
#[test]
fn a_draw_by_repetition_scores_the_search_draw_value() {
    use contagion::games::chexers::Chexers;
    let mut s = Chexers::new()
        .parse_position("4/1g3/6/3r3/6/2b2/4 r 0/0/0 0")
        .expect("a position");
    let cycle = "MOVE(0,0,1,0); MOVE(0,-2,1,-2); MOVE(-1,2,-1,3); \
                 MOVE(1,0,0,0); MOVE(1,-2,0,-2); MOVE(-1,3,-1,2)";
    let moves: Vec<&str> = cycle.split(';').map(str::trim).cycle().take(17).collect();
    for m in moves {
        let a = s.parse_legal_action(m).expect("a legal move");
        s.apply(a).expect("applies");
    }
    let repeat = s.parse_legal_action("MOVE(-1,3,-1,2)").expect("legal");
    let mut after = s.clone();
    after.apply(repeat).expect("applies");
    assert_eq!(
        after.outcome(),
        Some(Outcome::draw()),
        "the fourth occurrence"
    );
    for draw_value in [0.0, -0.5, -1.0] {
        let mut tree = Tree::new(s.clone());
        let params = MctsParams {
            draw_value,
            ..MctsParams::default()
        };
        let mut eval = UniformEvaluator;
        search_batched(
            &mut [&mut tree],
            600,
            &params,
            &mut eval,
            |_, _| {},
            |_| false,
        );
        let proof = tree
            .child_proof(repeat)
            .expect("the repeat is searched and proven");
        assert_eq!(
            proof.outcome[..3],
            [draw_value; 3],
            "draw value {draw_value}"
        );
        let chosen = tree.choose(false, &mut Rng::new(0));
        // Every other move scores 0 for all under a uniform evaluator: a draw below 0 is
        // the worst of Blue's moves, and a draw that costs a loss's −1 is never played.
        if draw_value < 0.0 {
            assert_ne!(chosen, Some(repeat), "draw value {draw_value}");
        }
    }
}

/// Blue's move back to the start position's second occurrence, scored as a draw at the
/// search's `repeat_value` (not proven: the rules play on), and never chosen below 0.
#[test]
fn a_repetition_in_the_tree_scores_the_search_repeat_value() {
    use contagion::games::chexers::Chexers;
    let mut s = Chexers::new()
        .parse_position("4/1g3/6/3r3/6/2b2/4 r 0/0/0 0")
        .expect("a position");
    assert!(!s.repeats(), "the first occurrence");
    let cycle = "MOVE(0,0,1,0); MOVE(0,-2,1,-2); MOVE(-1,2,-1,3); MOVE(1,0,0,0); MOVE(1,-2,0,-2)";
    for m in cycle.split(';').map(str::trim) {
        let a = s.parse_legal_action(m).expect("a legal move");
        s.apply(a).expect("applies");
    }
    assert!(!s.repeats(), "a new position");
    let repeat = s.parse_legal_action("MOVE(-1,3,-1,2)").expect("legal");
    let mut after = s.clone();
    after.apply(repeat).expect("applies");
    assert!(
        after.repeats() && after.outcome().is_none(),
        "the second occurrence"
    );
    for repeat_value in [0.0, -0.5] {
        let mut tree = Tree::new(s.clone());
        let params = MctsParams {
            repeat_value,
            ..MctsParams::default()
        };
        search_batched(
            &mut [&mut tree],
            600,
            &params,
            &mut UniformEvaluator,
            |_, _| {},
            |_| false,
        );
        assert!(tree.child_proof(repeat).is_none(), "the rules play on");
        let (_, visits, q) = (tree.root_children().into_iter())
            .find(|c| c.0 == repeat)
            .expect("the repeat is a child");
        if repeat_value == 0.0 {
            assert!(q.abs() < 1e-6, "a uniform evaluator's 0, not a draw's: {q}");
        } else {
            assert!(
                (q - repeat_value).abs() < 1e-6 && visits > 0,
                "{q} after {visits} visits"
            );
            assert_ne!(tree.choose(false, &mut Rng::new(0)), Some(repeat));
        }
    }
}

/// Uniform priors; a value for the mover that differs from position to position.
struct HashEvaluator;

impl<G: Game + std::fmt::Debug> contagion::search::mcts::Evaluator<G> for HashEvaluator {
    fn evaluate(&mut self, batch: &[(&G, &[Action])]) -> Vec<contagion::search::mcts::Evaluation> {
        batch
            .iter()
            .map(|(state, legal)| {
                let h = contagion::rng::splitmix64(
                    format!("{state:?}").len() as u64 * 7919
                        + format!("{state:?}").bytes().map(u64::from).sum::<u64>(),
                );
                let v = (h % 2001) as f32 / 1000.0 - 1.0;
                let mut values = [0.0; 3];
                values[state.to_move()] = v;
                values[1 - state.to_move().min(1)] = -v;
                contagion::search::mcts::Evaluation {
                    priors: vec![1.0 / legal.len().max(1) as f32; legal.len()],
                    values,
                }
            })
            .collect()
    }
}

fn gumbel_search(k: u32, sims: u32, leaves: u32, noise: bool) -> (Board, Tree<Board>) {
    let board = Board::from_notation(WIN_IN_ONE).unwrap();
    let params = MctsParams {
        gumbel: Some(GumbelParams {
            actions: k,
            ..GumbelParams::default()
        }),
        leaves_per_tree: leaves,
        ..MctsParams::default()
    };
    (board, begun_search(board, &params, sims, 5, noise))
}

/// `sims` simulations from `board` with the hash evaluator, each search begun as
/// self-play begins it (root noise when `noise`, generator seeded with `seed`).
fn begun_search(
    board: Board,
    params: &MctsParams,
    sims: u32,
    seed: u64,
    noise: bool,
) -> Tree<Board> {
    let mut tree = Tree::new(board);
    let mut rng = Rng::new(seed);
    search_batched(
        &mut [&mut tree],
        sims,
        params,
        &mut HashEvaluator,
        |_, t| t.begin(params, sims, &mut rng, noise),
        |_| false,
    );
    tree
}

#[test]
fn gumbel_sequential_halving_spends_the_budget_exactly() {
    for leaves in [1, 4] {
        for noise in [false, true] {
            // 16 simulations: one expands the root, 15 go to the children.
            let (_, tree) = gumbel_search(4, 16, leaves, noise);
            let mut visits: Vec<u32> = tree.root_children().iter().map(|c| c.1).collect();
            visits.retain(|&n| n > 0);
            visits.sort_unstable_by(|a, b| b.cmp(a));
            assert_eq!(
                visits.iter().sum::<u32>(),
                15,
                "leaves {leaves}: {visits:?}"
            );
            assert_eq!(visits.len(), 4, "exactly the k sampled actions: {visits:?}");
            if leaves == 1 {
                // Phase 1: one visit each; then the better two share the rest.
                assert_eq!(visits, [7, 6, 1, 1]);
            }
        }
    }
}

#[test]
fn gumbel_plays_the_best_completed_q_among_the_most_visited() {
    // k = 2, 8 simulations for the children: 4 each, then the better Q decides.
    let (board, tree) = gumbel_search(2, 9, 1, false);
    let children = tree.root_children();
    let visited: Vec<_> = children.iter().filter(|c| c.1 > 0).collect();
    assert_eq!(visited.iter().map(|c| c.1).collect::<Vec<_>>(), [4, 4]);
    let best = visited.iter().max_by(|a, b| a.2.total_cmp(&b.2)).unwrap().0;
    let chosen = tree.choose(false, &mut Rng::new(0)).unwrap();
    assert_eq!(board.action_to_string(chosen), board.action_to_string(best));
    // The training target: the improved policy, heaviest on the chosen move.
    let target = tree.policy_target();
    let total: u32 = target.iter().map(|t| t.1).sum();
    assert!((65_000..=66_100).contains(&total), "{total}");
    let heaviest = target.iter().max_by_key(|t| t.1).unwrap().0;
    assert_eq!(heaviest, chosen);
}

#[test]
fn a_tree_searched_on_four_threads_spends_its_budget_exactly_and_proves_the_win() {
    use contagion::search::pool::SearchPool;
    // A quiet position (one token each, far apart): nothing is proven in 700 simulations.
    let mut board = Board::new();
    for m in ["SPAWN(0,0)", "SPAWN(3,3)"] {
        board.apply(board.parse_action(m).unwrap()).unwrap();
    }
    let params = MctsParams {
        leaves_per_tree: 8,
        ..MctsParams::default()
    };
    let mut tree = Tree::new(board);
    let mut pool = SearchPool::new((0..4).map(|_| UniformEvaluator).collect());
    assert_eq!(pool.threads(), 4);
    let mut ready = 0;
    pool.search(&mut tree, 400, &params, |_| ready += 1, |_| false, None);
    assert_eq!(tree.root_visits(), 400, "exactly the budget");
    assert_eq!(ready, 1, "the root was prepared once");
    let children: u32 = tree.root_children().iter().map(|c| c.1).sum();
    assert_eq!(
        children, 399,
        "every simulation but the root's own went to a child"
    );
    assert_eq!(tree.root_proof(), None);
    // A reused tree gets exactly the budget on top; a stop ends it early.
    pool.search(&mut tree, 300, &params, |_| {}, |_| false, None);
    assert_eq!(tree.root_visits(), 700);
    // The calling thread asks `stop` before each of its batches; the helpers search on
    // until it does, within the budget (a budget far beyond what the helpers reach while
    // the scheduler sets the calling thread aside on a loaded machine).
    let budget = 100_000;
    pool.search(
        &mut tree,
        budget,
        &params,
        |_| {},
        |t| t.root_visits() >= 720,
        None,
    );
    let visits = tree.root_visits();
    assert!(
        (720..700 + budget).contains(&visits),
        "{visits}: stopped early"
    );
    // A win in one: proven as soon as a thread reaches it, and the search ends there.
    let win = Board::from_notation(WIN_IN_ONE).unwrap();
    let mut tree = Tree::new(win);
    pool.search(&mut tree, 5000, &params, |_| {}, |_| false, None);
    let proof = tree.root_proof().expect("the root is proven");
    assert_eq!(proof.mate_in(0), Some(1));
    assert!(tree.root_visits() < 5000, "the search ended at the proof");
    let best = tree.choose(false, &mut Rng::new(1)).unwrap();
    assert_eq!(win.action_to_string(best), "SPREAD(3,3,0,1)");
}

/// Uniform evaluations, slowly: a thread the scheduler set aside mid-batch.
struct Stalled(std::time::Duration);

impl<G: Game> Evaluator<G> for Stalled {
    fn evaluate(&mut self, batch: &[(&G, &[Action])]) -> Vec<Evaluation> {
        std::thread::sleep(self.0);
        UniformEvaluator.evaluate(batch)
    }
}

#[test]
fn a_stalled_helper_does_not_hold_the_move_and_its_late_batch_is_dropped() {
    use contagion::search::pool::SearchPool;
    use std::time::{Duration, Instant};
    let params = MctsParams {
        leaves_per_tree: 8,
        ..MctsParams::default()
    };
    let stall = Duration::from_millis(400);
    let mut pool = SearchPool::new(vec![
        Stalled(Duration::ZERO),
        Stalled(stall),
        Stalled(stall),
    ]);
    let mut tree = Tree::new(Board::new());
    let start = Instant::now();
    let deadline = Duration::from_millis(30);
    pool.search(
        &mut tree,
        1_000_000,
        &params,
        |_| {},
        |_| start.elapsed() >= deadline,
        None,
    );
    let took = start.elapsed();
    assert!(
        took < deadline + Duration::from_millis(150),
        "{took:?}: the move waited for a stalled helper"
    );
    let after_first = tree.root_visits();
    assert!(
        after_first > 8,
        "{after_first}: the calling thread searched on"
    );
    // The helpers' batches come back to a search that is over: dropped, and the tree
    // carries no virtual loss into the next search, which spends its budget exactly.
    std::thread::sleep(stall + Duration::from_millis(100));
    let (before, _) = (tree.root_visits(), ());
    pool.search(&mut tree, 50, &params, |_| {}, |_| false, None);
    assert_eq!(tree.root_visits(), before + 50);
    let children: u32 = tree.root_children().iter().map(|c| c.1).sum();
    assert_eq!(children + 1, tree.root_visits());
}

#[test]
fn a_helper_answers_at_the_deadline_when_the_calling_thread_is_set_aside() {
    use contagion::search::pool::{Deadline, SearchPool};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};
    let params = MctsParams {
        leaves_per_tree: 8,
        ..MctsParams::default()
    };
    // The calling thread's every batch takes half a second; the helper's none.
    let stall = Duration::from_millis(500);
    let mut pool = SearchPool::new(vec![Stalled(stall), Stalled(Duration::ZERO)]);
    let mut tree = Tree::new(Board::new());
    search_batched(
        &mut [&mut tree],
        1,
        &params,
        &mut UniformEvaluator,
        |_, _| {},
        |_| false,
    );
    let answers = Arc::new(Mutex::new(Vec::new()));
    let deadline = |at: Instant| {
        let answers = answers.clone();
        Some(Deadline {
            at,
            answer: Arc::new(move |t: &Tree<Board>| {
                let action = t.choose(false, &mut Rng::new(0));
                (answers.lock().unwrap()).push((Instant::now(), action, t.root_visits()));
                action
            }),
        })
    };
    let start = Instant::now();
    let answered = pool.search(
        &mut tree,
        1_000_000,
        &params,
        |_| {},
        |_| false,
        deadline(start + Duration::from_millis(30)),
    );
    let took = start.elapsed();
    let (when, action, visits) = {
        let answers = answers.lock().unwrap();
        assert_eq!(answers.len(), 1, "one answer");
        answers[0]
    };
    assert!(
        when.duration_since(start) < stall,
        "answered at {:?}, not before the set-aside thread came back",
        when.duration_since(start)
    );
    assert!(
        took >= stall,
        "{took:?}: the calling thread's batch ended first"
    );
    assert!(visits > 8, "{visits}: the helper searched");
    // The search returns the move written, and the tree it was read from: the calling
    // thread's late batch is dropped.
    assert_eq!(answered, action);
    assert_eq!(tree.root_visits(), visits);
    assert_eq!(tree.choose(false, &mut Rng::new(0)), action);
    // Nothing carries over: the next search spends its budget exactly.
    pool.search(&mut tree, 50, &params, |_| {}, |_| false, None);
    assert_eq!(tree.root_visits(), visits + 50);

    // A search that ends before its deadline answers nothing early.
    let mut pool = SearchPool::new(vec![UniformEvaluator, UniformEvaluator]);
    let far = deadline(Instant::now() + Duration::from_secs(60));
    let early = pool.search(&mut tree, 200, &params, |_| {}, |_| false, far);
    assert_eq!(early, None);
    assert_eq!(answers.lock().unwrap().len(), 1);
}

/// A PUCT search with root noise and forced playouts `k`, from a quiet Infexion position.
fn forced_search(k: f32, sims: u32) -> Tree<Board> {
    let mut board = Board::new();
    for m in ["SPAWN(0,0)", "SPAWN(3,3)"] {
        board.apply(board.parse_action(m).unwrap()).unwrap();
    }
    let params = MctsParams {
        dirichlet_fraction: 0.25,
        forced_playouts: k,
        ..MctsParams::default()
    };
    begun_search(board, &params, sims, 9, true)
}

#[test]
fn forced_playouts_visit_every_noised_child_and_the_target_takes_them_back() {
    let sims = 2000;
    let plain = forced_search(0.0, sims);
    let forced = forced_search(2.0, sims);
    let priors: Vec<(Action, f32)> = forced.root_priors();
    let total: u32 = forced.root_children().iter().map(|c| c.1).sum();
    for (&(action, visits, _), &(a, prior)) in forced.root_children().iter().zip(&priors) {
        assert_eq!(action, a);
        let owed = (2.0 * prior * total as f32).sqrt();
        assert!(
            visits as f32 >= owed - 2.0,
            "{visits} visits, {owed} forced"
        );
    }
    // Without forcing the raw visits are the target; with it, the most visited child
    // keeps its visits and every other keeps at most its own.
    let raw: Vec<(Action, u32)> = plain
        .root_children()
        .iter()
        .map(|c| (c.0, c.1))
        .filter(|c| c.1 > 0)
        .collect();
    assert_eq!(plain.policy_target(), raw);
    let target = forced.policy_target();
    let (best, most) = forced
        .root_children()
        .iter()
        .map(|c| (c.0, c.1))
        .max_by_key(|c| c.1)
        .unwrap();
    assert!(target.contains(&(best, most)), "{target:?}");
    let visits: std::collections::HashMap<Action, u32> =
        forced.root_children().iter().map(|c| (c.0, c.1)).collect();
    assert!(
        target
            .iter()
            .all(|&(a, n)| n <= visits[&a] && n > 1 || a == best)
    );
    let kept: u32 = target.iter().map(|t| t.1).sum();
    assert!(
        kept < total,
        "{kept} of {total}: forced visits were taken back"
    );
}
