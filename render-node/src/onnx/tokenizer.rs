//! The prompt tokenizer (CLIP BPE) from a model's `tokenizer/` folder, with
//! the `tokenizers` crate.
//!
//! Diffusers exports save the slow CLIP tokenizer's files (`vocab.json`,
//! `merges.txt`, `tokenizer_config.json`); some also carry a fast
//! `tokenizer.json`, which is used when present. From vocab and merges the
//! CLIP pipeline is assembled here: NFC, whitespace runs to one space,
//! lower case; split into letter runs, single digits and punctuation runs;
//! byte-level characters; BPE with the `</w>` end-of-word suffix; start and
//! end tokens around the ids. Prompts are truncated (keeping the end token)
//! and padded to `model_max_length` (77).

use std::path::Path;

use serde_json::Value;
use tokenizers::models::bpe::BPE;
use tokenizers::normalizers::replace::ReplacePattern;
use tokenizers::normalizers::{Lowercase, NFC, Replace, Sequence as NormalizerSequence};
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::sequence::Sequence as PreTokenizerSequence;
use tokenizers::pre_tokenizers::split::{Split, SplitPattern};
use tokenizers::processors::roberta::RobertaProcessing;
use tokenizers::{SplitDelimiterBehavior, Tokenizer};

use super::RefineError;

/// CLIP's pre-tokenization: contractions, letter runs, single digits, runs of
/// anything else that is not space.
const CLIP_SPLIT: &str = r"'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+";

const DEFAULT_BOS: &str = "<|startoftext|>";
const DEFAULT_EOS: &str = "<|endoftext|>";

/// Tokenizes prompts to the text encoder's fixed length.
pub struct PromptTokenizer {
    tokenizer: Tokenizer,
    max_len: usize,
    bos: Option<u32>,
    eos: u32,
    pad: u32,
}

impl std::fmt::Debug for PromptTokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromptTokenizer")
            .field("max_len", &self.max_len)
            .field("vocab", &self.tokenizer.get_vocab_size(true))
            .finish()
    }
}

fn err(dir: &Path, e: impl std::fmt::Display) -> RefineError {
    RefineError::Model(format!("tokenizer {}: {e}", dir.display()))
}

/// A special token from `tokenizer_config.json` or `special_tokens_map.json`:
/// a string or `{"content": ...}`.
fn special(config: &Value, key: &str) -> Option<String> {
    match config.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => o.get("content")?.as_str().map(str::to_owned),
        _ => None,
    }
}

fn read_json(path: &Path) -> Result<Option<Value>, RefineError> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| RefineError::Model(format!("{}: {e}", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(RefineError::Model(format!("{}: {e}", path.display()))),
    }
}

impl PromptTokenizer {
    /// Loads `dir` (a model's `tokenizer/` folder).
    pub fn load(dir: &Path) -> Result<PromptTokenizer, RefineError> {
        let mut config = read_json(&dir.join("tokenizer_config.json"))?.unwrap_or(Value::Null);
        if let Some(Value::Object(map)) = read_json(&dir.join("special_tokens_map.json"))? {
            for (k, v) in map {
                if config.get(&k).is_none() {
                    if let Value::Object(c) = &mut config {
                        c.insert(k, v);
                    } else {
                        config = Value::Object([(k, v)].into_iter().collect());
                    }
                }
            }
        }
        let bos_tok = special(&config, "bos_token").unwrap_or_else(|| DEFAULT_BOS.into());
        let eos_tok = special(&config, "eos_token").unwrap_or_else(|| DEFAULT_EOS.into());
        let pad_tok = special(&config, "pad_token").unwrap_or_else(|| eos_tok.clone());
        // Some configs hold a huge sentinel instead of a length.
        let max_len = config
            .get("model_max_length")
            .and_then(Value::as_f64)
            .filter(|n| *n >= 2.0 && *n <= 4096.0)
            .map_or(77, |n| n as usize);

        let json = dir.join("tokenizer.json");
        let mut tokenizer = if json.is_file() {
            Tokenizer::from_file(&json).map_err(|e| err(dir, e))?
        } else {
            let (vocab, merges) = (dir.join("vocab.json"), dir.join("merges.txt"));
            if !vocab.is_file() || !merges.is_file() {
                return Err(err(
                    dir,
                    "needs tokenizer.json, or vocab.json and merges.txt (a CLIP tokenizer)",
                ));
            }
            clip_from_files(&vocab, &merges, &bos_tok, &eos_tok).map_err(|e| err(dir, e))?
        };
        // Length is handled below, the same way for both kinds of file.
        tokenizer.with_padding(None);
        tokenizer.with_truncation(None).map_err(|e| err(dir, e))?;
        let id = |t: &str| tokenizer.token_to_id(t);
        let eos = id(&eos_tok).ok_or_else(|| err(dir, format!("no end token {eos_tok:?}")))?;
        let pad = id(&pad_tok).unwrap_or(eos);
        let bos = id(&bos_tok);
        Ok(PromptTokenizer {
            tokenizer,
            max_len,
            bos,
            eos,
            pad,
        })
    }

    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// The prompt's ids: start token, text, end token, padding; exactly
    /// `max_len` of them.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>, RefineError> {
        let enc = self
            .tokenizer
            .encode(text, true)
            .map_err(|e| RefineError::Model(format!("tokenizing {text:?}: {e}")))?;
        let mut ids: Vec<u32> = enc.get_ids().to_vec();
        // A tokenizer.json without a post-processor: add the markers here.
        if let Some(bos) = self.bos
            && ids.first() != Some(&bos)
        {
            ids.insert(0, bos);
        }
        if ids.last() != Some(&self.eos) {
            ids.push(self.eos);
        }
        if ids.len() > self.max_len {
            ids.truncate(self.max_len - 1);
            ids.push(self.eos);
        }
        ids.resize(self.max_len, self.pad);
        Ok(ids)
    }

    /// The assembled tokenizer as a `tokenizer.json` document.
    pub fn to_json(&self) -> Result<String, RefineError> {
        self.tokenizer
            .to_string(false)
            .map_err(|e| RefineError::Model(format!("tokenizer: {e}")))
    }
}

fn clip_from_files(
    vocab: &Path,
    merges: &Path,
    bos: &str,
    eos: &str,
) -> tokenizers::Result<Tokenizer> {
    let bpe = BPE::from_file(&vocab.to_string_lossy(), &merges.to_string_lossy())
        .end_of_word_suffix("</w>".into())
        .build()?;
    let bos_id = bpe_id(&bpe, bos)?;
    let eos_id = bpe_id(&bpe, eos)?;
    let mut tokenizer = Tokenizer::new(bpe);
    tokenizer.with_normalizer(Some(NormalizerSequence::new(vec![
        NFC.into(),
        Replace::new(ReplacePattern::Regex(r"\s+".into()), " ")?.into(),
        Lowercase.into(),
    ])));
    tokenizer.with_pre_tokenizer(Some(PreTokenizerSequence::new(vec![
        Split::new(
            SplitPattern::Regex(CLIP_SPLIT.into()),
            SplitDelimiterBehavior::Removed,
            true,
        )?
        .into(),
        ByteLevel::new(false, false, false).into(),
    ])));
    tokenizer.with_post_processor(Some(
        RobertaProcessing::new((eos.into(), eos_id), (bos.into(), bos_id))
            .trim_offsets(false)
            .add_prefix_space(false),
    ));
    tokenizer.with_decoder(Some(ByteLevel::default()));
    Ok(tokenizer)
}

fn bpe_id(bpe: &BPE, token: &str) -> tokenizers::Result<u32> {
    use tokenizers::Model;
    bpe.token_to_id(token)
        .ok_or_else(|| format!("vocab.json has no {token:?}").into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A CLIP-style vocabulary: the byte alphabet, each with `</w>`, a few
    /// merges, then the two markers.
    fn tiny_clip(dir: &Path) {
        std::fs::create_dir_all(dir).unwrap();
        let mut vocab = serde_json::Map::new();
        let alphabet: Vec<String> = (33u8..=126).map(|b| (b as char).to_string()).collect();
        for c in &alphabet {
            vocab.insert(c.clone(), vocab.len().into());
        }
        for c in &alphabet {
            vocab.insert(format!("{c}</w>"), vocab.len().into());
        }
        for t in ["re", "red</w>", "ca", "car</w>"] {
            vocab.insert(t.into(), vocab.len().into());
        }
        vocab.insert(DEFAULT_BOS.into(), vocab.len().into());
        vocab.insert(DEFAULT_EOS.into(), vocab.len().into());
        std::fs::write(
            dir.join("vocab.json"),
            serde_json::to_string(&vocab).unwrap(),
        )
        .unwrap();
        std::fs::write(
            dir.join("merges.txt"),
            "#version: 0.2\nr e\nre d</w>\nc a\nca r</w>\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("tokenizer_config.json"),
            r#"{"model_max_length": 8, "bos_token": {"content": "<|startoftext|>"},
               "eos_token": "<|endoftext|>", "pad_token": "!"}"#,
        )
        .unwrap();
    }

    #[test]
    fn clip_vocab_and_merges_tokenize_like_clip_and_round_trip_through_tokenizer_json() {
        let dir = std::env::temp_dir().join(format!("vis-onnx-tok-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        tiny_clip(&dir);
        let t = PromptTokenizer::load(&dir).unwrap();
        let id = |s: &str| t.tokenizer.token_to_id(s).unwrap();
        let (bos, eos, pad) = (id(DEFAULT_BOS), id(DEFAULT_EOS), id("!"));
        // Lower-cased, whitespace collapsed, words merged with the suffix.
        let ids = t.encode("  RED\tcar ").unwrap();
        assert_eq!(
            ids,
            vec![bos, id("red</w>"), id("car</w>"), eos, pad, pad, pad, pad]
        );
        // Digits split one by one; punctuation is its own word.
        let ids = t.encode("a1,").unwrap();
        assert_eq!(
            &ids[..5],
            &[bos, id("a</w>"), id("1</w>"), id(",</w>"), eos]
        );
        // Too long: truncated, the end marker kept.
        let ids = t.encode("red car red car red car red car").unwrap();
        assert_eq!(ids.len(), 8);
        assert_eq!(ids[7], eos);

        // The same tokenizer saved as tokenizer.json loads to the same ids.
        let json_dir = dir.join("fast");
        std::fs::create_dir_all(&json_dir).unwrap();
        std::fs::write(json_dir.join("tokenizer.json"), t.to_json().unwrap()).unwrap();
        std::fs::copy(
            dir.join("tokenizer_config.json"),
            json_dir.join("tokenizer_config.json"),
        )
        .unwrap();
        let fast = PromptTokenizer::load(&json_dir).unwrap();
        for text in ["studio photo of a red car", "A1, red!"] {
            assert_eq!(
                fast.encode(text).unwrap(),
                t.encode(text).unwrap(),
                "{text}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_folder_without_vocabulary_says_what_it_needs() {
        let dir = std::env::temp_dir().join(format!("vis-onnx-tok-empty-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let e = PromptTokenizer::load(&dir).unwrap_err().to_string();
        assert!(e.contains("vocab.json and merges.txt"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
