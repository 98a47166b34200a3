use contagion::nn::conv::{Op, matmul};
use contagion::nn::quant::QConv;
use std::time::Instant;
#[test]
#[ignore]
fn qbench() {
    let (rows, k, cout) = (49 * 8, 288, 32);
    let w: Vec<f32> = (0..k * cout)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) / 80.0)
        .collect();
    let x: Vec<f32> = (0..rows * k).map(|i| (i * 13 % 29) as f32 / 9.0).collect();
    let q = QConv::new(&w, k, cout);
    let mut y = vec![0.0; rows * cout];
    for _ in 0..3 {
        let t = Instant::now();
        for _ in 0..1000 {
            q.product(&x, rows, &mut y);
        }
        let a = t.elapsed().as_secs_f64();
        let t = Instant::now();
        for _ in 0..1000 {
            matmul(&mut y, Op::N(&x), Op::N(&w), rows, k, cout, false);
        }
        let b = t.elapsed().as_secs_f64();
        println!(
            "int8 {:.1} us, fp32 {:.1} us per call ({} rows)",
            a * 1e3,
            b * 1e3,
            rows
        );
    }
}
