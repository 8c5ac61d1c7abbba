//! Decimal text to the nearest double, without tables.
//!
//! Rust's own parser (`str::parse::<f64>`) is fast because of an 11 KiB table of powers of five
//! (Eisel-Lemire), bytes that do not compress and that every page downloaded for the few
//! numbers a metadata document has. This is the "simple decimal conversion" (as in Go's
//! `strconv` and Wuffs; Rust's parser uses it too, as its slow path): the digits are kept as a
//! decimal, scaled by powers of two until the value is in [1/2, 1), and the 53 bits of the
//! double are then read off, rounded to nearest, ties to even. It is exact for any input. Numbers
//! of at most 15 digits and a small exponent (most of what documents hold) take Clinger's fast
//! path first: one exact multiplication or division.

/// Digits kept. The value of a double's halfway point between two neighbours has at most 767
/// significant digits; past the ones kept, a nonzero digit only marks the decimal "truncated",
/// which is all rounding needs to know of it.
const MAX_DIGITS: usize = 800;

/// The largest shift applied at once: a 64-bit accumulator holds a digit times 2^60 plus carry.
const MAX_SHIFT: u32 = 60;

/// How far to shift right (left) to scale a value with `dp` integer digits (leading zeros)
/// towards [1/2, 1): about log2(10^dp), rounded down so as not to overshoot, and at least one
/// bit (a value in [0.1, 1/2) has `dp` 0 and still needs to double).
const POW2_OF_POW10: [u32; 9] = [1, 3, 6, 9, 13, 16, 19, 23, 26];

/// A decimal `0.d[0] d[1] ... d[nd - 1] x 10^dp`, its digits as values 0-9.
struct Decimal {
    digits: [u8; MAX_DIGITS],
    nd: usize,
    dp: i32,
    /// Nonzero digits were dropped past `MAX_DIGITS`: the value is a little more than shown.
    truncated: bool,
}

/// The double nearest to `text`, a number in JSON's syntax (an optional `-`, digits, an optional
/// fraction, an optional exponent); infinite when its magnitude rounds past the largest double.
/// Anything else in `text` is not looked at.
pub fn to_f64(text: &[u8]) -> f64 {
    let (negative, rest) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let magnitude = Decimal::parse(rest).into_f64();
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

impl Decimal {
    fn parse(text: &[u8]) -> Decimal {
        let mut d = Decimal {
            digits: [0; MAX_DIGITS],
            nd: 0,
            dp: 0,
            truncated: false,
        };
        let mut in_fraction = false;
        let mut at = 0;
        while let Some(&c) = text.get(at) {
            match c {
                b'.' => in_fraction = true,
                b'0'..=b'9' => {
                    let digit = c - b'0';
                    if d.nd == 0 && digit == 0 {
                        // A leading zero: after the point it scales the value down.
                        if in_fraction {
                            d.dp = d.dp.saturating_sub(1);
                        }
                    } else {
                        if d.nd < MAX_DIGITS {
                            d.digits[d.nd] = digit;
                            d.nd += 1;
                        } else if digit != 0 {
                            d.truncated = true;
                        }
                        if !in_fraction {
                            d.dp = d.dp.saturating_add(1);
                        }
                    }
                }
                _ => break,
            }
            at += 1;
        }
        if matches!(text.get(at), Some(b'e' | b'E')) {
            at += 1;
            let negative = match text.get(at) {
                Some(b'-') => {
                    at += 1;
                    true
                }
                Some(b'+') => {
                    at += 1;
                    false
                }
                _ => false,
            };
            // Not capped lower: a long run of digits can bring a large exponent back into range
            // ("1" and 100,001 zeros "e-100001" is 1). Saturating, so exact below 2^31.
            let mut exponent: i32 = 0;
            while let Some(c @ b'0'..=b'9') = text.get(at) {
                exponent = exponent
                    .saturating_mul(10)
                    .saturating_add(i32::from(c - b'0'));
                at += 1;
            }
            d.dp =
                d.dp.saturating_add(if negative { -exponent } else { exponent });
        }
        d.trim();
        d
    }

    fn into_f64(mut self) -> f64 {
        const MANTISSA_BITS: u32 = 52;
        const BIAS: i32 = -1023;
        if self.nd == 0 {
            return 0.0;
        }
        if let Some(exact) = self.exact_in_one_step() {
            return exact;
        }
        // Past these the value is infinite or zero, whatever its digits (10^310 > 2^1024 and
        // 10^-330 is below half the smallest subnormal, 2^-1075).
        if self.dp > 310 {
            return f64::INFINITY;
        }
        if self.dp < -330 {
            return 0.0;
        }
        let mut exp: i32 = 0;
        while self.dp > 0 {
            let n = POW2_OF_POW10.get(self.dp as usize).copied().unwrap_or(27);
            self.shift_right(n);
            exp += n as i32;
        }
        while self.dp < 0 || (self.dp == 0 && self.digits[0] < 5) {
            let n = POW2_OF_POW10
                .get((-self.dp) as usize)
                .copied()
                .unwrap_or(27);
            self.shift_left(n);
            exp -= n as i32;
        }
        // The value is in [1/2, 1) times 2^exp; a double's significand is in [1, 2).
        exp -= 1;
        if exp < BIAS + 1 {
            // Subnormal: fewer bits of significand, the exponent the least there is.
            let n = (BIAS + 1 - exp) as u32;
            self.shift_right(n);
            exp += n as i32;
        }
        if exp - BIAS >= 0x7ff {
            return f64::INFINITY;
        }
        self.shift_left(MANTISSA_BITS + 1);
        let mut mantissa = self.rounded_integer();
        if mantissa == 2 << MANTISSA_BITS {
            // Rounding carried into a 54th bit.
            mantissa >>= 1;
            exp += 1;
            if exp - BIAS >= 0x7ff {
                return f64::INFINITY;
            }
        }
        if mantissa & (1 << MANTISSA_BITS) == 0 {
            exp = BIAS;
        }
        let bits = (mantissa & ((1 << MANTISSA_BITS) - 1))
            | ((((exp - BIAS) as u64) & 0x7ff) << MANTISSA_BITS);
        f64::from_bits(bits)
    }

    /// Most numbers in documents, Clinger's fast path: with at most 15 digits (an integer below
    /// 2^53, exact as a double) and a power of ten from 10^-22 to 10^22 (also exact), one
    /// multiplication or division rounds once, correctly. No scaling and no allocation.
    fn exact_in_one_step(&self) -> Option<f64> {
        let exponent = self.dp - self.nd as i32;
        if self.truncated || self.nd > 15 || !(-22..=22).contains(&exponent) {
            return None;
        }
        let digits = self.digits[..self.nd]
            .iter()
            .fold(0u64, |n, &d| n * 10 + u64::from(d));
        // Each step is an exact power of ten, so the product is too.
        let scale = (0..exponent.unsigned_abs()).fold(1.0f64, |p, _| p * 10.0);
        Some(if exponent >= 0 {
            digits as f64 * scale
        } else {
            digits as f64 / scale
        })
    }

    /// Drops trailing zeros.
    fn trim(&mut self) {
        while self.nd > 0 && self.digits[self.nd - 1] == 0 {
            self.nd -= 1;
        }
        if self.nd == 0 {
            self.dp = 0;
        }
    }

    fn shift_left(&mut self, mut bits: u32) {
        while bits > 0 {
            let step = bits.min(MAX_SHIFT);
            self.shift_left_by(step);
            bits -= step;
        }
    }

    fn shift_right(&mut self, mut bits: u32) {
        while bits > 0 {
            let step = bits.min(MAX_SHIFT);
            self.shift_right_by(step);
            bits -= step;
        }
    }

    /// Multiplies by 2^k (k <= 60), from the last digit up. The product has at most 19 more
    /// digits (2^60 < 10^19); they are written from the end of a scratch buffer of that much
    /// more room, and the number made is the count of new leading digits.
    fn shift_left_by(&mut self, k: u32) {
        const ROOM: usize = 19;
        let mut scratch = [0u8; MAX_DIGITS + ROOM];
        let mut w = self.nd + ROOM;
        let mut n: u64 = 0;
        for r in (0..self.nd).rev() {
            n += u64::from(self.digits[r]) << k;
            w -= 1;
            scratch[w] = (n % 10) as u8;
            n /= 10;
        }
        while n > 0 {
            w -= 1;
            scratch[w] = (n % 10) as u8;
            n /= 10;
        }
        let len = self.nd + ROOM - w;
        let kept = len.min(MAX_DIGITS);
        if scratch[w + kept..w + len].iter().any(|&d| d != 0) {
            self.truncated = true;
        }
        self.digits[..kept].copy_from_slice(&scratch[w..w + kept]);
        self.dp += (len - self.nd) as i32;
        self.nd = kept;
        self.trim();
    }

    /// Divides by 2^k (k <= 60), from the first digit down.
    fn shift_right_by(&mut self, k: u32) {
        let mut r = 0;
        let mut n: u64 = 0;
        // Read digits until the accumulator holds at least 2^k.
        while n >> k == 0 {
            if r >= self.nd {
                if n == 0 {
                    self.nd = 0;
                    self.dp = 0;
                    return;
                }
                while n >> k == 0 {
                    n *= 10;
                    r += 1;
                }
                break;
            }
            n = n * 10 + u64::from(self.digits[r]);
            r += 1;
        }
        self.dp -= r as i32 - 1;
        let mask = (1u64 << k) - 1;
        let mut w = 0;
        while r < self.nd {
            let digit = n >> k;
            n &= mask;
            self.digits[w] = digit as u8;
            w += 1;
            n = n * 10 + u64::from(self.digits[r]);
            r += 1;
        }
        while n > 0 {
            let digit = n >> k;
            n &= mask;
            if w < MAX_DIGITS {
                self.digits[w] = digit as u8;
                w += 1;
            } else if digit > 0 {
                self.truncated = true;
            }
            n *= 10;
        }
        self.nd = w;
        self.trim();
    }

    /// The integer part, rounded to nearest, ties to even (a truncated tail breaks a tie up).
    fn rounded_integer(&self) -> u64 {
        if self.dp > 20 {
            return u64::MAX;
        }
        if self.dp < 0 {
            // Below 0.1: rounds to 0.
            return 0;
        }
        let dp = self.dp as usize;
        let mut n: u64 = 0;
        for i in 0..dp {
            n = n * 10 + u64::from(if i < self.nd { self.digits[i] } else { 0 });
        }
        if self.rounds_up(dp) {
            n += 1;
        }
        n
    }

    fn rounds_up(&self, at: usize) -> bool {
        if at >= self.nd {
            return false;
        }
        if self.digits[at] == 5 && at + 1 == self.nd {
            // Exactly halfway, unless digits were dropped.
            return self.truncated || (at > 0 && self.digits[at - 1] % 2 == 1);
        }
        self.digits[at] >= 5
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) {
        let ours = to_f64(text.as_bytes());
        let std: f64 = text.parse().unwrap();
        assert_eq!(
            ours.to_bits(),
            std.to_bits(),
            "{text}: {ours:e} against {std:e}"
        );
    }

    #[test]
    fn reads_what_rust_reads_at_the_edges() {
        for text in [
            "0",
            "-0",
            "0.0",
            "00.5",
            "0.05",
            "1",
            "1.5",
            "-1.5",
            "123456789012345678901234567890",
            "9.969209968386869e+36",
            "1e23",
            "8.98846567431158e307",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "1e308",
            "1e309",
            "2e308",
            "4.9406564584124654e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "2.2250738585072011e-308",
            "2.2250738585072012e-308",
            "2.2250738585072014e-308",
            "1e-400",
            "1e-324",
            "5e-324",
            "0.1",
            "0.2",
            "0.3",
            "3.141592653589793",
            "9007199254740993",
            "9007199254740992.5",
            "9007199254740993.0000000000000001",
            "1E5",
            "1e+5",
            "1.0e-5",
            "123.456e-2",
            "1e99999",
            "1e-99999",
            "0e99999",
            "0.000000000000000000000000000000000000000000001",
        ] {
            check(text);
        }
        assert_eq!(to_f64(b"1e99999"), f64::INFINITY);
        // Long digit runs that an exponent past 10^5 brings back to 1.
        let ones = [
            format!("1{}e-100001", "0".repeat(100_001)),
            format!("0.{}1e200000", "0".repeat(199_999)),
            format!("1{}e-200000", "0".repeat(200_000)),
        ];
        for text in ones {
            assert_eq!(to_f64(text.as_bytes()), 1.0, "{}...", &text[..20]);
        }
        assert_eq!(to_f64(b"1e999999999999"), f64::INFINITY);
        assert_eq!(to_f64(b"1e-999999999999"), 0.0);
        assert_eq!(to_f64(b"-0").to_bits(), (-0.0f64).to_bits());
    }

    /// The exact decimal of the point halfway between a double and the next one up, and texts a
    /// unit of the last digit either side of it: the hardest cases for rounding.
    #[test]
    fn rounds_halfway_points_to_even_and_their_neighbours_to_nearest() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for i in 0..3000 {
            // Every exponent range: subnormals, around 1, near the largest.
            let bits = match i % 3 {
                0 => next() % 0x0010_0000_0000_0000,
                1 => 0x3000_0000_0000_0000 + next() % 0x1800_0000_0000_0000,
                _ => 0x7fe0_0000_0000_0000 - next() % 0x0100_0000_0000_0000,
            };
            let (digits, exp10) = halfway_decimal(bits);
            check(&format!("{digits}e{exp10}"));
            // A unit of the next digit below and above.
            check(&format!("{}9e{}", decrement(&digits), exp10 - 1));
            check(&format!("{digits}1e{}", exp10 - 1));
            // A tail past the digits kept breaks the tie upwards.
            check(&format!("{digits}{}1e{}", "0".repeat(900), exp10 - 901));
        }
    }

    #[test]
    fn reads_what_rust_reads_for_random_texts() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for _ in 0..100_000 {
            let digits = 1 + next(40) as usize;
            let mut text: String = (0..digits)
                .map(|_| char::from(b'0' + next(10) as u8))
                .collect();
            if next(2) == 0 {
                let point = next(digits as u64 + 1) as usize;
                text.insert(point, '.');
                if text.starts_with('.') {
                    text.insert(0, '0');
                }
                if text.ends_with('.') {
                    text.push('0');
                }
            }
            if next(2) == 0 {
                text.push_str(&format!("e{}", next(700) as i64 - 350));
            }
            check(&text);
        }
    }

    /// The exact decimal of (2m + 1) * 2^(e - 1) for the double of `bits` = m * 2^e, as digits
    /// and a power of ten.
    fn halfway_decimal(bits: u64) -> (String, i32) {
        let exp_field = (bits >> 52) as i32;
        let fraction = bits & ((1 << 52) - 1);
        let (m, e) = if exp_field == 0 {
            (fraction, -1074)
        } else {
            (fraction | (1 << 52), exp_field - 1075)
        };
        let e = e - 1;
        // odd * 2^e, or odd * 5^-e / 10^-e; digits least significant first.
        let mut digits: Vec<u32> = (2 * m + 1)
            .to_string()
            .bytes()
            .rev()
            .map(|b| u32::from(b - b'0'))
            .collect();
        let (factor, times) = if e >= 0 { (2, e) } else { (5, -e) };
        for _ in 0..times {
            let mut carry = 0;
            for d in digits.iter_mut() {
                let v = *d * factor + carry;
                *d = v % 10;
                carry = v / 10;
            }
            while carry > 0 {
                digits.push(carry % 10);
                carry /= 10;
            }
        }
        let text = digits
            .iter()
            .rev()
            .map(|&d| char::from(b'0' + d as u8))
            .collect();
        (text, e.min(0))
    }

    /// `digits` (a positive integer) minus one.
    fn decrement(digits: &str) -> String {
        let mut d = digits.as_bytes().to_vec();
        let mut i = d.len() - 1;
        while d[i] == b'0' {
            d[i] = b'9';
            i -= 1;
        }
        d[i] -= 1;
        String::from_utf8(d).unwrap()
    }
}
