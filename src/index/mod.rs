//! Stage 3: the index — per-file facts for the whole tree, built in parallel, plus a cache of
//! syntax trees parsed again on demand for the few files a query looks into.
//!
//! Architecture invariant: the index records what each file says; it never follows an import,
//! resolves a name or evaluates anything (that is [`crate::resolve`] and [`crate::eval`]).

pub mod collect;
pub mod facts;
pub mod ids;

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;
use ruff_index::IndexVec;
use ruff_python_ast::ModModule;
use ruff_source_file::{LineIndex, OneIndexed};
use ruff_text_size::{TextRange, TextSize};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::diagnostics::{Diagnostic, DiagnosticKind};
use crate::discover::DiscoveredFile;
use crate::parse::{parse_module, read_source};
pub use facts::*;
pub use ids::{ClassId, FileId, FuncId};

/// One module of the tree.
#[derive(Debug)]
pub struct File {
    pub path: PathBuf,
    /// Path relative to its root, as printed.
    pub display: String,
    pub module: String,
    pub is_package: bool,
    /// Empty when the file could not be read (see the diagnostics).
    pub text: Arc<str>,
    pub readable: bool,
    pub facts: FileFacts,
    line_index: OnceLock<LineIndex>,
    ast: OnceLock<Arc<ModModule>>,
}

/// A position as printed: 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

impl File {
    pub fn line_index(&self) -> &LineIndex {
        self.line_index.get_or_init(|| LineIndex::from_source_text(&self.text))
    }

    pub fn position(&self, offset: TextSize) -> Position {
        let location = self.line_index().line_column(offset, &self.text);
        Position { line: location.line.get() as u32, column: location.column.get() as u32 }
    }

    /// The whole source line containing `offset`, without its line break.
    pub fn line_text(&self, line: u32) -> &str {
        let Some(one) = OneIndexed::new(line as usize) else {
            return "";
        };
        let range = self.line_index().line_range(one, &self.text);
        self.text[range].trim_end_matches(['\n', '\r'])
    }

    pub fn slice(&self, range: TextRange) -> &str {
        self.text.get(range.start().to_usize()..range.end().to_usize()).unwrap_or("")
    }

    /// The syntax tree, parsed again on first use and kept.
    pub fn ast(&self) -> Arc<ModModule> {
        self.ast.get_or_init(|| Arc::new(parse_module(&self.text).0)).clone()
    }
}

#[derive(Debug)]
pub struct Index {
    pub files: IndexVec<FileId, File>,
    modules: FxHashMap<String, FileId>,
    /// Every package name, including namespace packages that have no `__init__.py`.
    packages: FxHashSet<String>,
    /// Attribute names some code sets on an object other than its own `self` (see
    /// [`FileFacts::foreign_attr_writes`]), over the whole tree.
    foreign_attr_writes: FxHashSet<String>,
}

impl Index {
    /// Reads, parses and collects every file, in parallel. Syntax trees are dropped once their
    /// facts are taken, so memory stays proportional to the facts, not to the trees.
    pub fn build(files: Vec<DiscoveredFile>, max_file_size: u64) -> (Index, Vec<Diagnostic>) {
        let built: Vec<(File, Vec<Diagnostic>)> = files
            .into_par_iter()
            .enumerate()
            .map(|(i, found)| build_file(FileId::from_usize(i), found, max_file_size))
            .collect();
        let mut diagnostics = Vec::new();
        let mut index = Index {
            files: IndexVec::new(),
            modules: FxHashMap::default(),
            packages: FxHashSet::default(),
            foreign_attr_writes: FxHashSet::default(),
        };
        for (file, diags) in built {
            diagnostics.extend(diags);
            let mut name = file.module.as_str();
            if file.is_package {
                index.packages.insert(name.to_string());
            }
            while let Some((parent, _)) = name.rsplit_once('.') {
                index.packages.insert(parent.to_string());
                name = parent;
            }
            index.foreign_attr_writes.extend(file.facts.foreign_attr_writes.iter().map(|n| n.to_string()));
            let id = index.files.push(file);
            index.modules.insert(index.files[id].module.clone(), id);
        }
        (index, diagnostics)
    }

    pub fn module(&self, name: &str) -> Option<FileId> {
        self.modules.get(name).copied()
    }

    pub fn is_package(&self, name: &str) -> bool {
        self.packages.contains(name)
    }

    /// Whether some code of the tree sets attribute `name` on an object other than its own
    /// `self` (or through `setattr` with that literal name).
    pub fn set_from_outside(&self, name: &str) -> bool {
        self.foreign_attr_writes.contains(name)
    }

    pub fn class(&self, id: ClassId) -> &ClassFacts {
        &self.files[id.file].facts.classes[id.local as usize]
    }

    pub fn function(&self, id: FuncId) -> &FunctionFacts {
        &self.files[id.file].facts.functions[id.local as usize]
    }

    pub fn file(&self, id: FileId) -> &File {
        &self.files[id]
    }

    pub fn all_classes(&self) -> impl Iterator<Item = ClassId> + '_ {
        self.files
            .iter_enumerated()
            .flat_map(|(file, f)| (0..f.facts.classes.len() as u32).map(move |local| ClassId { file, local }))
    }

    pub fn all_functions(&self) -> impl Iterator<Item = FuncId> + '_ {
        self.files
            .iter_enumerated()
            .flat_map(|(file, f)| (0..f.facts.functions.len() as u32).map(move |local| FuncId { file, local }))
    }

    /// `module.qualname` of a class.
    pub fn class_path(&self, id: ClassId) -> String {
        format!("{}.{}", self.files[id.file].module, self.class(id).qualname)
    }

    pub fn function_path(&self, id: FuncId) -> String {
        format!("{}.{}", self.files[id.file].module, self.function(id).qualname)
    }
}

fn build_file(id: FileId, found: DiscoveredFile, max_file_size: u64) -> (File, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let (text, readable) = match read_source(&found.path, max_file_size) {
        Ok(text) => (text, true),
        Err((kind, message)) => {
            diagnostics.push(Diagnostic::new(kind, Some(found.display.clone()), None, message));
            (String::new(), false)
        }
    };
    let mut file = File {
        path: found.path,
        display: found.display,
        module: found.module,
        is_package: found.is_package,
        text: Arc::from(text),
        readable,
        facts: FileFacts::default(),
        line_index: OnceLock::new(),
        ast: OnceLock::new(),
    };
    if readable {
        let (module, errors) = parse_module(&file.text);
        if let Some(first) = errors.first() {
            let line = file.position(first.location.start()).line;
            let more = if errors.len() > 1 { format!(" (and {} more)", errors.len() - 1) } else { String::new() };
            diagnostics.push(Diagnostic::new(
                DiagnosticKind::SyntaxError,
                Some(file.display.clone()),
                Some(line),
                format!("syntax error: {}{more}; analyzing what parsed", first.error),
            ));
        }
        let (facts, diags) =
            collect::Collector::new(id, &file.module, file.is_package, &file.display, &file.text).collect(&module.body);
        file.facts = facts;
        diagnostics.extend(diags);
    }
    (file, diagnostics)
}
