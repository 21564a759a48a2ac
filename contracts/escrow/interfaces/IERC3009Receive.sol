// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice The part of EIP-3009 the payment collector calls (the bytes-signature overload, as
/// Circle's FiatToken v2.2 and our TestUSDC have it).
interface IERC3009Receive {
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external;
}
