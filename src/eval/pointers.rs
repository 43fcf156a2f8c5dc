//! Compiled code handed raw addresses of tensors (`x.data_ptr()`): directly
//! (`lib.kernel(x.data_ptr(), out.data_ptr(), n)`), or packed into a record a kernel is launched
//! with (`args = Args(x.data_ptr(), ..., out.data_ptr(), n)`, a ctypes structure, then
//! `kernel.launch(grid, args, stream)`). What that code reads and writes is memory the
//! evaluation cannot see, so it is read as any outside kernel is: what it computes is the
//! product of the data it is handed (the tensors addressed, and the numbers beside them, with
//! delegated applications of the traced value among those), and it lands in the fresh buffers
//! among the addressed tensors; the other addressed tensors are its inputs.
//!
//! Read as the `torch.empty` it was allocated as, SGLang's ROCm small-M MoE output (filled so)
//! held none of the factor folded into the top-k weights: a false NEVER row.

use std::rc::Rc;

use ruff_python_ast::{Expr, ExprCall};

use super::calls::{Arg, Args};
use super::cond::Cond;
use super::interp::{Frame, Interp};
use super::stmts::writable_buffer;
use super::value::*;

/// Foreign-call wrappers that keep an address (`ctypes.c_void_p(x.data_ptr())`,
/// `ctypes.cast(ptr, T)`): the tensor addressed is their first argument's.
const ADDRESS_WRAPPERS: &[&str] = &["c_void_p", "c_uint64", "c_int64", "c_size_t", "cast", "int"];

/// Ways of handing a record by reference (`ctypes.byref(args)`, `ctypes.cast(ctypes.byref(args),
/// ctypes.c_void_p)`): the record is their first argument.
const BY_REFERENCE: &[&str] = &["byref", "pointer", "addressof", "cast", "c_void_p"];

/// The tensor whose address `expr` is: `t.data_ptr()` (also of `t.untyped_storage()`), or such
/// an address wrapped for a foreign call.
fn addressed_tensor(expr: &Expr) -> Option<&Expr> {
    let Expr::Call(call) = expr else { return None };
    match call.func.as_ref() {
        Expr::Attribute(attr) if attr.attr.as_str() == "data_ptr" && call.arguments.is_empty() => {
            Some(storage_owner(&attr.value))
        }
        func if last_name(func).is_some_and(|n| ADDRESS_WRAPPERS.contains(&n)) => {
            addressed_tensor(call.arguments.args.first()?)
        }
        _ => None,
    }
}

/// `t.untyped_storage()` / `t.storage()`: `t`'s memory.
fn storage_owner(expr: &Expr) -> &Expr {
    if let Expr::Call(call) = expr
        && let Expr::Attribute(attr) = call.func.as_ref()
        && matches!(attr.attr.as_str(), "untyped_storage" | "storage")
        && call.arguments.is_empty()
    {
        return &attr.value;
    }
    expr
}

fn last_name(func: &Expr) -> Option<&str> {
    match func {
        Expr::Name(name) => Some(name.id.as_str()),
        Expr::Attribute(attr) => Some(attr.attr.as_str()),
        _ => None,
    }
}

/// A field of a record handed to compiled code: the address of a tensor, or a value.
#[derive(Clone, Debug)]
pub enum Field {
    Address(Expr),
    Value(Expr),
}

impl Field {
    fn of(expr: &Expr) -> Field {
        match addressed_tensor(expr) {
            Some(tensor) => Field::Address(tensor.clone()),
            None => Field::Value(expr.clone()),
        }
    }
}

/// The fields of the record `value` builds, when it is a call, tuple or list: at least one an
/// address (`Args(x.data_ptr(), ..., n)`), or the items of a tuple or list of plain names (the
/// tensors whose addresses a later record takes one by one). `*(t.data_ptr() for t in
/// tensors)` over a local bound to such a tuple stands for the address of each of its items
/// (SGLang's ROCm small-M router packs its pointers so).
pub fn record_of_addresses(frame: &Frame, value: &Expr) -> Option<Rc<[Field]>> {
    let items: Vec<&Expr> = match value {
        Expr::Call(call) => {
            call.arguments.args.iter().chain(call.arguments.keywords.iter().map(|k| &k.value)).collect()
        }
        Expr::Tuple(tuple) => tuple.elts.iter().collect(),
        Expr::List(list) => list.elts.iter().collect(),
        _ => return None,
    };
    let names = !matches!(value, Expr::Call(_))
        && items
            .iter()
            .all(|i| matches!(i, Expr::Name(_)) || matches!(i, Expr::Starred(s) if matches!(*s.value, Expr::Name(_))));
    // (Most assignments build no record: nothing is cloned for them.)
    if !names && !items.iter().any(|i| matches!(i, Expr::Starred(_)) || addressed_tensor(i).is_some()) {
        return None;
    }
    let mut fields = Vec::with_capacity(items.len());
    for item in &items {
        match item {
            Expr::Starred(star) => match addresses_of_items(frame, &star.value) {
                Some(addresses) => fields.extend(addresses),
                None => fields.push(Field::Value((*item).clone())),
            },
            _ => fields.push(Field::of(item)),
        }
    }
    let addresses = fields.iter().any(|f| matches!(f, Field::Address(_)));
    (addresses || names).then(|| fields.into())
}

/// `(t.data_ptr() for t in tensors)`, `tensors` a local bound to a tuple or list of names: the
/// address of each (a starred item among them, whose items are not known, left out).
fn addresses_of_items(frame: &Frame, expr: &Expr) -> Option<Vec<Field>> {
    let (element, generators) = match expr {
        Expr::Generator(g) => (&g.elt, &g.generators),
        Expr::ListComp(l) => (&l.elt, &l.generators),
        _ => return None,
    };
    let [comprehension] = generators.as_slice() else { return None };
    if !comprehension.ifs.is_empty() || comprehension.is_async {
        return None;
    }
    let (Expr::Name(variable), Expr::Name(source)) = (&comprehension.target, &comprehension.iter) else {
        return None;
    };
    let Expr::Name(owner) = addressed_tensor(element)? else { return None };
    if owner.id != variable.id {
        return None;
    }
    let items = frame.address_records.get(&source.id)?;
    Some(
        items
            .iter()
            .filter_map(|field| match field {
                Field::Value(item @ Expr::Name(_)) => Some(Field::Address(item.clone())),
                _ => None,
            })
            .collect(),
    )
}

/// A value read without effects (a local, its attributes and items, a number, arithmetic and
/// conversions of those): a record's field read again where the record is handed over.
fn plain_read(expr: &Expr) -> bool {
    match expr {
        Expr::Name(_) | Expr::NumberLiteral(_) | Expr::BooleanLiteral(_) | Expr::NoneLiteral(_) => true,
        Expr::Attribute(attr) => plain_read(&attr.value),
        Expr::Subscript(sub) => plain_read(&sub.value) && plain_read(&sub.slice),
        Expr::BinOp(op) => plain_read(&op.left) && plain_read(&op.right),
        Expr::UnaryOp(op) => plain_read(&op.operand),
        // `float(scale)`: a number converted for the foreign call.
        Expr::Call(call) => {
            matches!(call.func.as_ref(), Expr::Name(f) if matches!(f.id.as_str(), "float" | "int" | "bool"))
                && call.arguments.keywords.is_empty()
                && call.arguments.args.iter().all(plain_read)
        }
        _ => false,
    }
}

impl Interp<'_, '_> {
    /// After a call made for its effect: where it was handed addresses of tensors (or a record
    /// of them, by name or by reference), the fresh buffers addressed now hold the product of
    /// the data it was handed.
    pub(super) fn write_through_addresses(&mut self, frame: &mut Frame, call: &ExprCall, pc: &Cond) {
        // (Most calls are handed no address: nothing is cloned for them.)
        let mut arguments = call.arguments.args.iter().chain(call.arguments.keywords.iter().map(|k| &k.value));
        let has_address = |record: &Rc<[Field]>| record.iter().any(|f| matches!(f, Field::Address(_)));
        if !arguments.any(|a| addressed_tensor(a).is_some() || record_named(frame, a).is_some_and(has_address)) {
            return;
        }
        let handed = self.handed_fields(frame, call);
        if !handed.iter().any(|field| matches!(field, Field::Address(_))) {
            return;
        }
        let mut targets: Vec<Expr> = Vec::new();
        let mut args = Args::default();
        for field in handed.iter() {
            let read = match field {
                Field::Address(tensor) if writable_buffer(frame, tensor) => {
                    targets.push(tensor.clone());
                    continue;
                }
                Field::Address(tensor) => tensor,
                Field::Value(value) if plain_read(value) => value,
                Field::Value(_) => continue,
            };
            let value = self.eval(frame, read, pc);
            args.positional.push(Arg { value, loc: Some(self.loc(frame.file, read)) });
        }
        if targets.is_empty() {
            return;
        }
        let loc = self.loc(frame.file, call);
        let label = self.text(self.loc(frame.file, call.func.as_ref()));
        let result = self.combine_external(&label, None, &args, pc, loc);
        // Only data counts. Where it carries the traced value or a scale not known, it is
        // what the buffers hold now; plain, it fills only what nothing wrote yet (elsewhere a
        // plain product may be a kernel that reads the buffer too).
        let mut data = G::empty();
        let mut plain = G::empty();
        for (c, v) in result.iter() {
            match v {
                Value::Num(n) if n.carries_traced() || n.parts.iter().any(|p| p.unknown.is_some()) => {
                    data.push(&self.conds, *c, v.clone())
                }
                Value::Num(n) if !n.is_unwritten() => plain.push(&self.conds, *c, v.clone()),
                _ => {}
            }
        }
        if !plain.is_empty() {
            let filled = pc.and(&plain.coverage(&self.conds));
            for target in &targets {
                self.fill_unwritten(frame, target, &plain, &filled);
            }
        }
        if data.is_empty() {
            return;
        }
        let written = pc.and(&data.coverage(&self.conds));
        for target in &targets {
            self.assign_in_place(frame, target, data.clone(), &written);
        }
    }

    /// The call's arguments, a record of addresses bound to a local standing for its fields.
    fn handed_fields(&self, frame: &Frame, call: &ExprCall) -> Vec<Field> {
        let mut fields = Vec::new();
        let arguments = call.arguments.args.iter().chain(call.arguments.keywords.iter().map(|k| &k.value));
        for argument in arguments {
            match record_named(frame, argument) {
                Some(record) => fields.extend(record.iter().cloned()),
                None => fields.push(Field::of(argument)),
            }
        }
        fields
    }
}

/// The record `expr` names: a local bound to one, or a reference to it
/// (`ctypes.cast(ctypes.byref(args), ctypes.c_void_p)`).
fn record_named<'f>(frame: &'f Frame, expr: &Expr) -> Option<&'f Rc<[Field]>> {
    match expr {
        Expr::Name(name) => frame.address_records.get(&name.id),
        Expr::Call(call) if last_name(&call.func).is_some_and(|n| BY_REFERENCE.contains(&n)) => {
            record_named(frame, call.arguments.args.first()?)
        }
        _ => None,
    }
}
